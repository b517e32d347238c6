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
        assertThat(substitutions.get("BudgetManagerFunctionArn").toString()).contains("FunctionsBudgetManagerAlias");
        assertThat(substitutions.get("FinalizerFunctionArn").toString()).contains("FunctionsFinalizerAlias");
        assertThat(substitutions).doesNotContainKeys("NotifierFunctionArn", "AdmitTimeoutSeconds");
    }

    @Test
    void admitWaitsForTheTaskTokenUntilTheRequestsOwnTimeoutAndEndsTheHappyPathInOneTransition() throws Exception {
        String rendered = Files.readString(SynthesizedStacks.STATEMACHINES.resolve("request-lifecycle.asl.json"));
        JsonNode states = new ObjectMapper().readTree(rendered).get("States");
        JsonNode admit = states.get("Admit");
        assertThat(admit.get("Resource").asText()).endsWith(":states:::lambda:invoke.waitForTaskToken");
        assertThat(admit.get("Parameters").get("Payload").get("taskToken.$").asText()).isEqualTo("$$.Task.Token");
        assertThat(admit.get("TimeoutSecondsPath").asText()).isEqualTo("$.admitTimeoutSeconds");
        assertThat(admit.has("TimeoutSeconds")).isFalse();
        assertThat(admit.get("End").asBoolean()).as("delivery is handed off before the token returns").isTrue();
        assertThat(admit.has("Next")).isFalse();
        Set<String> caught = new TreeSet<>();
        admit.get("Catch").forEach(handler -> {
            assertThat(handler.get("Next").asText()).isEqualTo("Finalize");
            handler.get("ErrorEquals").forEach(error -> caught.add(error.asText()));
        });
        assertThat(caught).contains("States.Timeout", "States.HeartbeatTimeout", "States.TaskFailed", "States.ALL");
        assertThat(states.get("Finalize").get("Next").asText()).isEqualTo("Ended");
        JsonNode ended = states.get("Ended");
        assertThat(ended.get("Type").asText()).isEqualTo("Choice");
        assertThat(ended.get("Choices").get(0).get("Variable").asText()).isEqualTo("$.outcome.status");
        assertThat(ended.get("Choices").get(0).get("Next").asText()).isEqualTo("Succeeded");
        assertThat(ended.get("Default").asText()).isEqualTo("Failed");
        assertThat(states.get("Succeeded").get("Type").asText()).isEqualTo("Succeed");
        assertThat(states.get("Failed").get("Type").asText()).isEqualTo("Fail");
        assertThat(rendered).doesNotContain("Notifier", "Deliver\"");
        assertThat(states.size()).as("a handful of states keeps transitions, and cost, low").isEqualTo(5);
    }

    @Test
    void stateMachineMayInvokeOnlyItsTwoAliases() {
        List<IamPolicies.Statement> invokes = IamPolicies.of(dev).statementsOf("LifecycleStateMachineRole").stream()
                .filter(statement -> statement.actions().contains("lambda:InvokeFunction"))
                .toList();
        assertThat(invokes).hasSize(1);
        assertThat(invokes.get(0).resources().toString())
                .contains("FunctionsBudgetManagerAlias", "FunctionsFinalizerAlias")
                .doesNotContain("QueueProcessor", "BedrockProcessor", "Notifier");
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
