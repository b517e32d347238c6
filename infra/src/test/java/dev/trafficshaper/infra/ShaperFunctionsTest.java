package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class ShaperFunctionsTest {

    private static final List<String> ENVIRONMENT = List.of("TABLE_NAME", "PAYLOAD_BUCKET", "STATE_MACHINE_ARN",
            "EVENT_BUS_NAME", "QUEUE_PROCESSOR_FUNCTION", "BEDROCK_PROCESSOR_FUNCTION", "MODELS_CONFIG",
            "WEBHOOK_SECRET_ARN", "POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE");

    private final SynthesizedStacks.Synthesized synthesized = SynthesizedStacks.development();
    private final Template dev = synthesized.template();

    @ParameterizedTest
    @CsvSource({
            "submit,            dev.trafficshaper.functions.submit.SubmitHandler,               1024, 15",
            "budget-manager,    dev.trafficshaper.functions.budget.BudgetManagerHandler,        1024, 30",
            "queue-processor,   dev.trafficshaper.functions.drain.QueueProcessorHandler,        1024, 900",
            "bedrock-processor, dev.trafficshaper.functions.invoke.BedrockProcessorHandler,     512,  900",
            "finalizer,         dev.trafficshaper.functions.finalize.FinalizerHandler,          512,  30",
            "status,            dev.trafficshaper.functions.status.StatusHandler,               1024, 10",
            "notifier,          dev.trafficshaper.functions.notify.NotifierHandler,             512,  60"})
    void eachFunctionRunsItsHandlerOnJava21Arm64WithSnapStartAndTracing(String purpose, String handler, int memory,
                                                                       int timeout) {
        dev.hasResourceProperties("AWS::Lambda::Function", Map.of(
                "FunctionName", "TrafficShaper-dev-" + purpose,
                "Handler", handler + "::handleRequest",
                "Runtime", "java21",
                "Architectures", List.of("arm64"),
                "SnapStart", Map.of("ApplyOn", "PublishedVersions"),
                "TracingConfig", Map.of("Mode", "Active"),
                "MemorySize", memory,
                "Timeout", timeout));
    }

    @Test
    void everyFunctionIsPublishedBehindTheLiveAlias() {
        dev.resourceCountIs("AWS::Lambda::Function", 7);
        dev.resourceCountIs("AWS::Lambda::Version", 7);
        dev.resourceCountIs("AWS::Lambda::Alias", 7);
        dev.allResourcesProperties("AWS::Lambda::Alias", Map.of("Name", "live"));
    }

    @Test
    void onlyTheDrainerHasReservedConcurrency() {
        Map<String, Map<String, Object>> reserved = dev.findResources("AWS::Lambda::Function", Map.of(
                "Properties", Map.of("ReservedConcurrentExecutions", Match.anyValue())));
        assertThat(reserved).hasSize(1);
        dev.hasResourceProperties("AWS::Lambda::Function", Map.of(
                "FunctionName", "TrafficShaper-dev-queue-processor",
                "ReservedConcurrentExecutions", 4));
    }

    @Test
    void bedrockProcessorIsNeverRetriedAndFailuresGoToTheDeadLetterQueue() {
        dev.hasResourceProperties("AWS::Lambda::EventInvokeConfig", Map.of(
                "FunctionName", Map.of("Ref", logicalId("AWS::Lambda::Function", "bedrock-processor")),
                "MaximumRetryAttempts", 0,
                "DestinationConfig", Map.of("OnFailure", Map.of("Destination",
                        Map.of("Fn::GetAtt", List.of(singleId("AWS::SQS::Queue"), "Arn"))))));
        dev.hasResourceProperties("AWS::SQS::Queue", Map.of(
                "SqsManagedSseEnabled", true, "MessageRetentionPeriod", 14 * 24 * 3600));
    }

    @Test
    void drainerWakeUpsAreDisposable() {
        dev.hasResourceProperties("AWS::Lambda::EventInvokeConfig", Map.of(
                "FunctionName", Map.of("Ref", logicalId("AWS::Lambda::Function", "queue-processor")),
                "MaximumRetryAttempts", 0,
                "MaximumEventAgeInSeconds", 60));
    }

    @Test
    void everyFunctionGetsTheWholeEnvironmentContract() {
        Map<String, Map<String, Object>> functions = dev.findResources("AWS::Lambda::Function");
        for (Map<String, Object> function : functions.values()) {
            assertThat(variables(function)).containsKeys(ENVIRONMENT.toArray(String[]::new));
        }
    }

    @Test
    void functionsFindEachOtherByConstructedAliasArns() {
        Map<String, Object> variables = variables(dev.findResources("AWS::Lambda::Function").get(
                logicalId("AWS::Lambda::Function", "budget-manager")));
        assertThat(variables.get("QUEUE_PROCESSOR_FUNCTION").toString())
                .contains(":function:TrafficShaper-dev-queue-processor:live");
        assertThat(variables.get("BEDROCK_PROCESSOR_FUNCTION").toString())
                .contains(":function:TrafficShaper-dev-bedrock-processor:live");
        assertThat(variables.get("STATE_MACHINE_ARN").toString())
                .contains(":stateMachine:TrafficShaper-dev-request-lifecycle");
        assertThat(variables.get("MODELS_CONFIG").toString())
                .contains("\"nova-lite\"").doesNotContain("description");
        assertThat(variables).containsEntry("POWERTOOLS_SERVICE_NAME", "traffic-shaper")
                .containsEntry("POWERTOOLS_METRICS_NAMESPACE", "TrafficShaper");
    }

    @Test
    void noFunctionRoleUsesAManagedPolicy() {
        for (String purpose : List.of("submit", "budget-manager", "queue-processor", "bedrock-processor",
                "finalizer", "status", "notifier")) {
            dev.hasResourceProperties("AWS::IAM::Role", Map.of(
                    "Description", "Runs the " + purpose + " function",
                    "ManagedPolicyArns", Match.absent()));
        }
    }

    @Test
    void theDrainerAndProcessorsMayAnswerTheCallbackByStateMachineArn() {
        for (String purpose : List.of("BudgetManager", "QueueProcessor", "BedrockProcessor")) {
            assertThat(IamPolicies.of(dev).statementsOf("Functions" + purpose))
                    .anySatisfy(statement -> {
                        assertThat(statement.actions()).containsExactlyInAnyOrder(
                                "states:SendTaskSuccess", "states:SendTaskFailure", "states:SendTaskHeartbeat");
                        assertThat(statement.resources().toString())
                                .contains(":stateMachine:TrafficShaper-dev-request-lifecycle")
                                .doesNotContain("LifecycleStateMachine");
                    });
        }
        for (String purpose : List.of("Submit", "Finalizer", "Status", "Notifier")) {
            assertThat(IamPolicies.of(dev).statementsOf("Functions" + purpose))
                    .noneSatisfy(statement -> assertThat(statement.actions()).contains("states:SendTaskSuccess"));
        }
    }

    @Test
    void onlyTheSubmitFunctionStartsExecutions() {
        assertThat(IamPolicies.of(dev).statementsWithAction("states:StartExecution"))
                .extracting(IamPolicies.Statement::policy)
                .allMatch(policy -> policy.startsWith("FunctionsSubmit"))
                .isNotEmpty();
    }

    @Test
    void onlyTheBedrockProcessorInvokesBedrockAndOnlyTheConfiguredModels() {
        List<IamPolicies.Statement> statements = IamPolicies.of(dev).statementsWithAction("bedrock:InvokeModel");
        assertThat(statements).extracting(IamPolicies.Statement::policy)
                .allMatch(policy -> policy.startsWith("FunctionsBedrockProcessor")).hasSize(1);
        assertThat(statements.get(0).resources().toString())
                .contains("foundation-model/amazon.nova-lite-v1:0")
                .contains("inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0")
                .contains(":bedrock:*::foundation-model/anthropic.claude-sonnet-4-20250514-v1:0");
    }

    @Test
    void noStatementGrantsAWildcardAction() {
        assertThat(IamPolicies.of(dev).all())
                .allSatisfy(statement -> assertThat(statement.actions()).noneMatch(action -> action.contains("*")));
    }

    @Test
    void wildcardResourcesAreOnlyForXrayAndLogDelivery() {
        assertThat(IamPolicies.of(dev).all())
                .filteredOn(statement -> statement.resources().contains("*"))
                .allSatisfy(statement -> assertThat(statement.actions())
                        .allMatch(action -> action.startsWith("xray:") || action.startsWith("logs:")));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> variables(Map<String, Object> function) {
        Map<String, Object> properties = (Map<String, Object>) function.get("Properties");
        return (Map<String, Object>) ((Map<String, Object>) properties.get("Environment")).get("Variables");
    }

    private String logicalId(String type, String purpose) {
        Map<String, Map<String, Object>> found = dev.findResources(type, Map.of(
                "Properties", Map.of("FunctionName", "TrafficShaper-dev-" + purpose)));
        assertThat(found).hasSize(1);
        return found.keySet().iterator().next();
    }

    private String singleId(String type) {
        Map<String, Map<String, Object>> found = dev.findResources(type);
        assertThat(found).hasSize(1);
        return found.keySet().iterator().next();
    }
}
