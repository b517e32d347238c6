package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class RequestLifecycleTest {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9]+)}");

    private final SynthesizedStacks.Synthesized synthesized = SynthesizedStacks.development();
    private final Template dev = synthesized.template();

    @Test
    void stateMachineIsStandardWithErrorLoggingAndTracing() {
        dev.hasResourceProperties("AWS::StepFunctions::StateMachine", Map.of(
                "StateMachineName", "TrafficShaper-dev-request-lifecycle",
                "StateMachineType", "STANDARD",
                "TracingConfiguration", Map.of("Enabled", true),
                "LoggingConfiguration", Match.objectLike(Map.of("Level", "ERROR", "IncludeExecutionData", false))));
    }

    @Test
    void definitionIsTheRepositoryFileWithEveryPlaceholderSubstituted() throws Exception {
        String file = Files.readString(SynthesizedStacks.STATEMACHINES.resolve("request-lifecycle.asl.json"));
        Map<String, Object> properties = stateMachineProperties();
        assertThat(properties.get("DefinitionString")).isEqualTo(file);
        Set<String> placeholders = new TreeSet<>();
        Matcher matcher = PLACEHOLDER.matcher(file);
        while (matcher.find()) {
            placeholders.add(matcher.group(1));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> substitutions = (Map<String, Object>) properties.get("DefinitionSubstitutions");
        assertThat(substitutions.keySet()).containsExactlyInAnyOrderElementsOf(placeholders);
        assertThat(substitutions.get("AdmitTimeoutSeconds")).isEqualTo("3900");
        assertThat(substitutions.get("BudgetManagerFunctionArn").toString()).contains("FunctionsBudgetManagerAlias");
        assertThat(substitutions.get("FinalizerFunctionArn").toString()).contains("FunctionsFinalizerAlias");
        assertThat(substitutions.get("NotifierFunctionArn").toString()).contains("FunctionsNotifierAlias");
    }

    @Test
    void admitWaitsForTheTaskTokenAndEveryFailureIsFinalized() throws Exception {
        String rendered = Files.readString(SynthesizedStacks.STATEMACHINES.resolve("request-lifecycle.asl.json"))
                .replace("${AdmitTimeoutSeconds}", "3900");
        JsonNode states = new ObjectMapper().readTree(rendered).get("States");
        JsonNode admit = states.get("Admit");
        assertThat(admit.get("Resource").asText()).endsWith(":states:::lambda:invoke.waitForTaskToken");
        assertThat(admit.get("Parameters").get("Payload").get("taskToken.$").asText()).isEqualTo("$$.Task.Token");
        Set<String> caught = new TreeSet<>();
        admit.get("Catch").forEach(handler -> {
            assertThat(handler.get("Next").asText()).isEqualTo("Finalize");
            handler.get("ErrorEquals").forEach(error -> caught.add(error.asText()));
        });
        assertThat(caught).contains("States.Timeout", "States.HeartbeatTimeout", "States.TaskFailed", "States.ALL");
        assertThat(states.get("Finalize").get("Next").asText()).isEqualTo("DeliverFailure");
        assertThat(states.get("DeliverFailure").get("Next").asText()).isEqualTo("Failed");
        assertThat(states.get("Failed").get("Type").asText()).isEqualTo("Fail");
        assertThat(admit.get("Next").asText()).isEqualTo("Deliver");
        assertThat(states.get("Deliver").get("End").asBoolean()).isTrue();
        for (String deliver : List.of("Deliver", "DeliverFailure")) {
            JsonNode handler = states.get(deliver).get("Catch").get(0);
            assertThat(handler.get("ErrorEquals").get(0).asText()).as(deliver + " catches everything")
                    .isEqualTo("States.ALL");
            assertThat(handler.get("ResultPath").asText()).isEqualTo("$.deliveryError");
        }
        assertThat(states.get("DeliveryNotSent").get("Type").asText()).isEqualTo("Succeed");
        assertThat(states.get("FailureNotDelivered").get("Next").asText()).isEqualTo("Failed");
        assertThat(states.size()).as("a handful of states keeps transitions, and cost, low").isLessThanOrEqualTo(7);
    }

    @Test
    void stateMachineMayInvokeOnlyItsThreeAliases() {
        List<IamPolicies.Statement> invokes = IamPolicies.of(dev).statementsOf("LifecycleStateMachineRole").stream()
                .filter(statement -> statement.actions().contains("lambda:InvokeFunction"))
                .toList();
        assertThat(invokes).hasSize(1);
        assertThat(invokes.get(0).resources().toString())
                .contains("FunctionsBudgetManagerAlias", "FunctionsFinalizerAlias", "FunctionsNotifierAlias")
                .doesNotContain("QueueProcessor", "BedrockProcessor");
    }

    @Test
    void callbackPermissionsCreateNoDependencyCycle() {
        assertThat(new TemplateGraph(synthesized.resources()).findCycle()).isEmpty();
        assertThat(new TemplateGraph(SynthesizedStacks.production().resources()).findCycle()).isEmpty();
    }

    @Test
    void drainerRunsEveryMinuteAsASafetyNet() {
        dev.hasResourceProperties("AWS::Events::Rule", Map.of(
                "ScheduleExpression", "rate(1 minute)",
                "State", "ENABLED",
                "Targets", List.of(Match.objectLike(Map.of(
                        "Arn", Map.of("Ref", Match.stringLikeRegexp("FunctionsQueueProcessorAlias.*")),
                        "RetryPolicy", Map.of("MaximumRetryAttempts", 0, "MaximumEventAgeInSeconds", 60))))));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> stateMachineProperties() {
        Map<String, Map<String, Object>> machines = dev.findResources("AWS::StepFunctions::StateMachine");
        assertThat(machines).hasSize(1);
        return (Map<String, Object>) machines.values().iterator().next().get("Properties");
    }
}
