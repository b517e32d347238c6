package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.aws.s3.S3PayloadObjects;
import dev.trafficshaper.composition.ShaperPorts;
import dev.trafficshaper.infra.compute.ShaperFunctions;
import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.DrainWindow;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.quota.Quota;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class ShaperFunctionsTest {

    private static final List<String> COMMON = List.of("TABLE_NAME", "PAYLOAD_BUCKET", "MODELS_CONFIG",
            "POWERTOOLS_SERVICE_NAME", "POWERTOOLS_LOG_LEVEL");
    private static final List<String> LOGS_AND_TRACES = List.of("logs:CreateLogStream", "logs:PutLogEvents",
            "xray:PutTraceSegments", "xray:PutTelemetryRecords");
    private static final List<String> KEY_READ = List.of("kms:Decrypt", "kms:DescribeKey");
    private static final List<String> KEY_WRITE = List.of("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt",
            "kms:GenerateDataKey");
    private static final List<String> TASK_RESPONSE = List.of("states:SendTaskSuccess", "states:SendTaskFailure");

    private final SynthesizedStacks.Synthesized synthesized = SynthesizedStacks.development();
    private final Template dev = synthesized.template();

    @ParameterizedTest
    @CsvSource({
            "submit,            dev.trafficshaper.functions.submit.SubmitHandler,               1024, 15",
            "budget-manager,    dev.trafficshaper.functions.budget.BudgetManagerHandler,        1024, 30",
            "queue-processor,   dev.trafficshaper.functions.drain.QueueProcessorHandler,        1024, 900",
            "bedrock-processor, dev.trafficshaper.functions.invoke.BedrockProcessorHandler,     256,  900",
            "finalizer,         dev.trafficshaper.functions.finalize.FinalizerHandler,          512,  30",
            "status,            dev.trafficshaper.functions.status.StatusHandler,               1024, 10",
            "notifier,          dev.trafficshaper.functions.notify.NotifierHandler,             512,  90"})
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
    void onlyTheDrainerHasReservedConcurrencyThreePerModelPlusTwo() {
        Map<String, Map<String, Object>> reserved = dev.findResources("AWS::Lambda::Function", Map.of(
                "Properties", Map.of("ReservedConcurrentExecutions", Match.anyValue())));
        assertThat(reserved).hasSize(1);
        dev.hasResourceProperties("AWS::Lambda::Function", Map.of(
                "FunctionName", "TrafficShaper-dev-queue-processor",
                "ReservedConcurrentExecutions", 3 * 2 + 2));
    }

    @Test
    void timeoutsCoverWhatTheCodeWaitsFor() throws ReflectiveOperationException {
        long bedrockProcessor = timeoutSeconds("bedrock-processor");
        assertThat(bedrockProcessor).as("longer than the longest Bedrock call, within Lambda's limit")
                .isGreaterThan(InvocationService.MAX_CALL.toSeconds() + 60).isLessThanOrEqualTo(900);

        Field margin = Class.forName("dev.trafficshaper.functions.drain.QueueProcessorHandler")
                .getDeclaredField("HANDOFF_MARGIN_MILLIS");
        margin.setAccessible(true);
        long handoffMillis = margin.getLong(null);
        long queueProcessorMillis = timeoutSeconds("queue-processor") * 1000;
        assertThat(queueProcessorMillis).as("the drainer runs up to Lambda's limit")
                .isEqualTo(900_000);
        assertThat(queueProcessorMillis - handoffMillis).as("drains for many lease periods before handing off")
                .isGreaterThan(10 * DrainSettings.defaults().leaseMillis());
        assertThat(handoffMillis).as("the hand-off margin outlasts a lease, so the successor finds it released")
                .isGreaterThanOrEqualTo(DrainSettings.defaults().leaseMillis());
        DrainWindow inline = DrainWindow.forInvocation(DispatchMode.INLINE, catalogModel(), 0, queueProcessorMillis);
        assertThat(inline.stopByMillis()).as("calls in the drainer: it admits for minutes before it hands off,")
                .isGreaterThanOrEqualTo(4 * 60_000L);
        assertThat(inline.fits(inline.stopByMillis() + InvocationService.MAX_CALL.toMillis(), inline.stopByMillis()))
                .as("and its longest call admitted at the hand-off still ends in its invocation").isTrue();

        long webhookWorstCase = ShaperPorts.WEBHOOK_TIMEOUT.toSeconds();
        assertThat(timeoutSeconds("notifier")).as("a batch of webhook attempts side by side, 5 s each at most")
                .isGreaterThan(webhookWorstCase + 10);
        for (String shortLived : List.of("submit", "budget-manager", "finalizer", "status")) {
            assertThat(timeoutSeconds(shortLived)).isLessThanOrEqualTo(30);
        }
    }

    @Test
    void bedrockProcessorIsNeverRetriedAndFailuresGoToTheDeadLetterQueue() {
        dev.hasResourceProperties("AWS::Lambda::EventInvokeConfig", Map.of(
                "FunctionName", Map.of("Ref", logicalId("AWS::Lambda::Function", "bedrock-processor")),
                "Qualifier", Map.of("Fn::Select", List.of(7, Map.of("Fn::Split", List.of(":",
                        Map.of("Ref", Match.stringLikeRegexp("FunctionsBedrockProcessorAlias.*")))))),
                "MaximumRetryAttempts", 0,
                "MaximumEventAgeInSeconds", 3600,
                "DestinationConfig", Map.of("OnFailure", Map.of("Destination",
                        Map.of("Fn::GetAtt", List.of(Match.stringLikeRegexp("FunctionsBedrockProcessorDeadLetters.*"),
                                "Arn"))))));
        dev.hasResourceProperties("AWS::SQS::Queue", Map.of(
                "SqsManagedSseEnabled", true, "MessageRetentionPeriod", 14 * 24 * 3600));
        assertThat(IamPolicies.of(dev).statementsWithAction("sqs:SendMessage"))
                .extracting(IamPolicies.Statement::policy)
                .as("the Bedrock Processor's DLQ, and the webhook queue of each function that hands off a delivery")
                .allMatch(policy -> List.of("FunctionsBedrockProcessor", "FunctionsBudgetManager",
                        "FunctionsQueueProcessor", "FunctionsFinalizer").stream().anyMatch(policy::startsWith))
                .hasSize(5);
    }

    @Test
    void drainerWakeUpsAreDisposable() {
        dev.hasResourceProperties("AWS::Lambda::EventInvokeConfig", Map.of(
                "FunctionName", Map.of("Ref", logicalId("AWS::Lambda::Function", "queue-processor")),
                "MaximumRetryAttempts", 0,
                "MaximumEventAgeInSeconds", 60));
    }

    @ParameterizedTest
    @CsvSource({
            "submit,            STATE_MACHINE_ARN",
            "budget-manager,    QUEUE_PROCESSOR_FUNCTION BEDROCK_PROCESSOR_FUNCTION POWERTOOLS_METRICS_NAMESPACE"
                    + " EVENT_BUS_NAME DELIVERY_QUEUE_URL",
            "queue-processor,   QUEUE_PROCESSOR_FUNCTION BEDROCK_PROCESSOR_FUNCTION POWERTOOLS_METRICS_NAMESPACE"
                    + " EVENT_BUS_NAME DELIVERY_QUEUE_URL DISPATCH_MODE INLINE_CALLS",
            "bedrock-processor, QUEUE_PROCESSOR_FUNCTION BEDROCK_PROCESSOR_FUNCTION POWERTOOLS_METRICS_NAMESPACE"
                    + " EVENT_BUS_NAME DELIVERY_QUEUE_URL",
            "finalizer,         POWERTOOLS_METRICS_NAMESPACE EVENT_BUS_NAME DELIVERY_QUEUE_URL",
            "status,            ''",
            "notifier,          WEBHOOK_SECRET_ARN DELIVERY_QUEUE_URL WEBHOOK_MAX_ATTEMPTS"
                    + " WEBHOOK_FIRST_RETRY_SECONDS WEBHOOK_MAX_RETRY_SECONDS"})
    void eachFunctionGetsExactlyTheVariablesItsCodeReads(String purpose, String own) {
        List<String> expected = new ArrayList<>(COMMON);
        if (!own.isBlank()) {
            expected.addAll(List.of(own.trim().split(" ")));
        }
        assertThat(variables(function(purpose)).keySet()).containsExactlyInAnyOrderElementsOf(expected)
                .doesNotContain("SHAPER_LOCAL_CALLBACKS");
    }

    @Test
    void functionsFindEachOtherByConstructedAliasArns() {
        Map<String, Object> variables = variables(function("budget-manager"));
        assertThat(variables.get("QUEUE_PROCESSOR_FUNCTION").toString())
                .contains(":function:TrafficShaper-dev-queue-processor:live");
        assertThat(variables.get("BEDROCK_PROCESSOR_FUNCTION").toString())
                .contains(":function:TrafficShaper-dev-bedrock-processor:live");
        assertThat(variables(function("submit")).get("STATE_MACHINE_ARN").toString())
                .contains(":stateMachine:TrafficShaper-dev-request-lifecycle");
        assertThat(variables.get("MODELS_CONFIG").toString())
                .contains("\"nova-lite\"").doesNotContain("description");
        assertThat(variables).containsEntry("POWERTOOLS_SERVICE_NAME", "traffic-shaper")
                .containsEntry("POWERTOOLS_METRICS_NAMESPACE", "TrafficShaper")
                .containsEntry("POWERTOOLS_LOG_LEVEL", "INFO");
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

    /**
     * Every action each role allows, compared with the calls its code makes (see the comments in
     * {@code ShaperFunctions.grantPermissions}): nothing missing, nothing extra.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "Submit           | dynamodb:GetItem dynamodb:UpdateItem s3:PutObject states:StartExecution"
                    + " states:DescribeExecution | write",
            "BudgetManager    | dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem"
                    + " states:SendTaskSuccess states:SendTaskFailure lambda:InvokeFunction"
                    + " sqs:SendMessage events:PutEvents | write",
            "QueueProcessor   | dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem dynamodb:DeleteItem"
                    + " dynamodb:ConditionCheckItem dynamodb:Query dynamodb:BatchGetItem s3:GetObject s3:PutObject"
                    + " states:SendTaskSuccess states:SendTaskFailure lambda:InvokeFunction bedrock:InvokeModel"
                    + " sqs:SendMessage events:PutEvents | write",
            "BedrockProcessor | dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem dynamodb:DeleteItem"
                    + " s3:GetObject s3:PutObject states:SendTaskSuccess states:SendTaskFailure lambda:InvokeFunction"
                    + " bedrock:InvokeModel sqs:SendMessage sqs:GetQueueAttributes sqs:GetQueueUrl"
                    + " sqs:SendMessage events:PutEvents | write",
            "Finalizer        | dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem dynamodb:DeleteItem"
                    + " sqs:SendMessage events:PutEvents | write",
            "Status           | dynamodb:GetItem s3:GetObject | read",
            "Notifier         | dynamodb:GetItem dynamodb:UpdateItem s3:GetObject"
                    + " secretsmanager:GetSecretValue sqs:ReceiveMessage sqs:ChangeMessageVisibility"
                    + " sqs:GetQueueUrl sqs:DeleteMessage sqs:GetQueueAttributes | write"})
    void eachRoleAllowsExactlyTheCallsItsCodeMakes(String function, String actions, String keyUse) {
        List<String> expected = new ArrayList<>(LOGS_AND_TRACES);
        expected.addAll(List.of(actions.trim().split(" ")));
        expected.addAll(keyUse.equals("write") ? KEY_WRITE : KEY_READ);
        List<String> granted = IamPolicies.of(dev).statementsOf("Functions" + function + "Role").stream()
                .flatMap(statement -> statement.actions().stream()).toList();
        assertThat(granted).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void theDataKeyIsUsableOnlyThroughTheServicesEachFunctionCalls() {
        Map<String, List<String>> services = Map.of(
                "Submit", List.of("dynamodb", "s3"), "BudgetManager", List.of("dynamodb"),
                "QueueProcessor", List.of("dynamodb", "s3"), "BedrockProcessor", List.of("dynamodb", "s3"),
                "Finalizer", List.of("dynamodb"), "Status", List.of("dynamodb", "s3"),
                "Notifier", List.of("dynamodb", "s3", "secretsmanager"));
        services.forEach((function, expected) -> {
            List<IamPolicies.Statement> keyUse = IamPolicies.of(dev).statementsOf("Functions" + function + "Role")
                    .stream().filter(statement -> statement.actions().contains("kms:Decrypt")).toList();
            assertThat(keyUse).as(function).hasSize(1);
            assertThat(keyUse.get(0).resources().toString()).contains("DataKey");
            String condition = keyUse.get(0).condition().toString();
            assertThat(condition).contains("kms:ViaService");
            for (String service : List.of("dynamodb", "s3", "secretsmanager")) {
                assertThat(condition.contains("[" + service + ".") || condition.contains(" " + service + "."))
                        .as(function + " may use the key through " + service).isEqualTo(expected.contains(service));
            }
        });
    }

    @Test
    void payloadObjectsAreGrantedOnlyUnderTheirPrefix() {
        List<IamPolicies.Statement> objects = IamPolicies.of(dev).all().stream()
                .filter(statement -> statement.actions().stream().anyMatch(action -> action.startsWith("s3:")))
                .toList();
        assertThat(objects).hasSize(5).allSatisfy(statement -> assertThat(statement.resources().toString())
                .contains("Payloads").endsWith("/" + S3PayloadObjects.PREFIX + "*]]}]"));
    }

    @Test
    void theDrainerAndProcessorsMayAnswerTheCallbackByStateMachineArn() {
        for (String purpose : List.of("BudgetManager", "QueueProcessor", "BedrockProcessor")) {
            assertThat(IamPolicies.of(dev).statementsOf("Functions" + purpose))
                    .anySatisfy(statement -> {
                        assertThat(statement.actions()).containsExactlyInAnyOrderElementsOf(TASK_RESPONSE);
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
    void asynchronousInvokesReachOnlyTheLiveAliasesTheCodeWakesOrDispatchesTo() {
        Map<String, List<String>> targets = Map.of(
                "BudgetManager", List.of("queue-processor"),
                "QueueProcessor", List.of("queue-processor", "bedrock-processor"),
                "BedrockProcessor", List.of("queue-processor"));
        for (IamPolicies.Statement statement : IamPolicies.of(dev).statementsWithAction("lambda:InvokeFunction")) {
            if (statement.policy().startsWith("LifecycleStateMachine")) {
                continue;
            }
            String function = targets.keySet().stream().filter(name -> statement.policy().startsWith("Functions" + name))
                    .findFirst().orElseThrow(() -> new AssertionError(statement.policy() + " may invoke functions"));
            String resources = statement.resources().toString();
            for (String purpose : List.of("queue-processor", "bedrock-processor")) {
                assertThat(resources.contains(":function:TrafficShaper-dev-" + purpose + ":live"))
                        .as(function + " invokes " + purpose).isEqualTo(targets.get(function).contains(purpose));
            }
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
    void onlyTheBedrockProcessorAndTheDrainerThatCallsItselfInvokeBedrockAndOnlyTheConfiguredModels() {
        List<IamPolicies.Statement> statements = IamPolicies.of(dev).statementsWithAction("bedrock:InvokeModel");
        assertThat(statements).extracting(IamPolicies.Statement::policy)
                .anyMatch(policy -> policy.startsWith("FunctionsBedrockProcessor"))
                .anyMatch(policy -> policy.startsWith("FunctionsQueueProcessor"))
                .hasSize(2);
        for (IamPolicies.Statement statement : statements) {
            assertThat(statement.actions()).containsExactly("bedrock:InvokeModel");
            assertThat(statement.resources().toString())
                    .contains("foundation-model/amazon.nova-lite-v1:0")
                    .contains("inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0")
                    .contains(":bedrock:*::foundation-model/anthropic.claude-sonnet-4-20250514-v1:0");
        }
    }

    @Test
    void theDrainerIsDeployedToMakeItsCallsItselfAndTheProcessorKeepsTheAsynchronousPath() {
        Map<String, Object> drainer = variables(function("queue-processor"));
        assertThat(drainer).containsEntry("DISPATCH_MODE", "inline")
                .containsEntry("INLINE_CALLS", Integer.toString(DrainSettings.DEFAULT_INLINE_CALLS));
        assertThat(drainer.get("BEDROCK_PROCESSOR_FUNCTION").toString())
                .contains(":function:TrafficShaper-dev-bedrock-processor:live");
        assertThat(variables(function("bedrock-processor"))).doesNotContainKey("DISPATCH_MODE");
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
    /** A model whose requests may wait an hour, so its calls may last the full 10 minutes. */
    private static ModelConfig catalogModel() {
        return new ModelConfig("m", "amazon.nova-lite-v1:0", Backend.CONVERSE, Quota.tokensPerMinute(1_000_000), 1_000,
                100_000, PacerSettings.defaults(), 2, 900, 3_600, null);
    }

    private static Map<String, Object> variables(Map<String, Object> function) {
        Map<String, Object> properties = (Map<String, Object>) function.get("Properties");
        return (Map<String, Object>) ((Map<String, Object>) properties.get("Environment")).get("Variables");
    }

    private Map<String, Object> function(String purpose) {
        return dev.findResources("AWS::Lambda::Function").get(logicalId("AWS::Lambda::Function", purpose));
    }

    @SuppressWarnings("unchecked")
    private long timeoutSeconds(String purpose) {
        return ((Number) ((Map<String, Object>) function(purpose).get("Properties")).get("Timeout")).longValue();
    }

    private String logicalId(String type, String purpose) {
        Map<String, Map<String, Object>> found = dev.findResources(type, Map.of(
                "Properties", Map.of("FunctionName", "TrafficShaper-dev-" + purpose)));
        assertThat(found).hasSize(1);
        return found.keySet().iterator().next();
    }
}
