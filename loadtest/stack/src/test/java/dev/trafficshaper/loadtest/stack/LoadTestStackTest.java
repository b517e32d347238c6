package dev.trafficshaper.loadtest.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.assertions.Match;

class LoadTestStackTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final SynthesizedLoadTestStack.Synthesized synthesized = SynthesizedLoadTestStack.get();

    @Test
    void theRunFansTheScheduleOutWithADistributedMapOfStandardChildExecutionsThenReconciles() throws Exception {
        Map<String, Object> machine = only("AWS::StepFunctions::StateMachine");
        @SuppressWarnings("unchecked")
        Map<String, Object> properties = (Map<String, Object>) machine.get("Properties");
        JsonNode definition = JSON.readTree((String) properties.get("DefinitionString"));
        JsonNode fanOut = definition.path("States").path("PlaySlices");
        assertThat(definition.path("StartAt").asText()).isEqualTo("PlaySlices");
        assertThat(fanOut.path("Type").asText()).isEqualTo("Map");
        assertThat(fanOut.path("ItemProcessor").path("ProcessorConfig").path("Mode").asText()).isEqualTo("DISTRIBUTED");
        assertThat(fanOut.path("ItemProcessor").path("ProcessorConfig").path("ExecutionType").asText())
                .isEqualTo("STANDARD");
        assertThat(fanOut.path("ItemReader").path("Resource").asText()).endsWith(":states:::s3:getObject");
        assertThat(fanOut.path("ItemProcessor").path("States").path("WaitForWindow").path("TimestampPath").asText())
                .isEqualTo("$.slice.startAt");
        assertThat(fanOut.path("Next").asText()).isEqualTo("Reconcile");
        assertThat(definition.path("States").path("WaitForOutcomes").path("Next").asText()).isEqualTo("Reconcile");
        @SuppressWarnings("unchecked")
        Map<String, Object> substitutions = (Map<String, Object>) properties.get("DefinitionSubstitutions");
        assertThat(substitutions).containsOnlyKeys("Partition", "LoadTestWorkerFunctionArn",
                "LoadTestReconcilerFunctionArn", "LoadTestResultsBucket");
        synthesized.template().hasResourceProperties("AWS::StepFunctions::StateMachine", Map.of(
                "StateMachineType", "STANDARD",
                "StateMachineName", "TrafficShaperLoadTest-run",
                "TracingConfiguration", Map.of("Enabled", true),
                "LoggingConfiguration", Match.objectLike(Map.of("Level", "ALL", "IncludeExecutionData", false))));
    }

    @Test
    void threeJavaFunctionsRunTheHandlersOfTheLoadTestJar() {
        synthesized.template().resourceCountIs("AWS::Lambda::Function", 3);
        for (String handler : List.of(TrafficShaperLoadTestStack.WORKER_HANDLER,
                TrafficShaperLoadTestStack.RECORDER_HANDLER, TrafficShaperLoadTestStack.RECONCILER_HANDLER)) {
            synthesized.template().hasResourceProperties("AWS::Lambda::Function", Map.of(
                    "Handler", handler, "Runtime", "java21", "Architectures", List.of("arm64")));
        }
        synthesized.template().hasResourceProperties("AWS::Lambda::Function", Map.of(
                "Handler", TrafficShaperLoadTestStack.WORKER_HANDLER, "Timeout", 900,
                "MemorySize", TrafficShaperLoadTestStack.WORKER_MEMORY_MB,
                "Environment", Map.of("Variables", Match.objectLike(Map.of(
                        "SHAPER_API_URL", Map.of("Ref", TrafficShaperLoadTestStack.API_PARAMETER))))));
    }

    @Test
    void theHandlersTheStackNamesExistInTheLoadTestModule() {
        Path sources = SynthesizedLoadTestStack.REPOSITORY.resolve("loadtest/src/main/java");
        for (String handler : List.of(TrafficShaperLoadTestStack.WORKER_HANDLER,
                TrafficShaperLoadTestStack.RECORDER_HANDLER, TrafficShaperLoadTestStack.RECONCILER_HANDLER)) {
            String type = handler.substring(0, handler.indexOf("::"));
            assertThat(sources.resolve(type.replace('.', '/') + ".java")).as(handler).isRegularFile();
        }
    }

    @Test
    void theShaperArmsOutcomeEventsReachTheRecorderThroughARuleOnTheShapersBus() {
        synthesized.template().hasResourceProperties("AWS::Events::Rule", Map.of(
                "EventBusName", Map.of("Ref", TrafficShaperLoadTestStack.BUS_PARAMETER),
                "EventPattern", Map.of(
                        "source", List.of("traffic-shaper"),
                        "detail-type", List.of("Shaped request finished"),
                        "detail", Map.of("requestId", List.of(Map.of("prefix", "lt-"))))));
        synthesized.template().hasResourceProperties("AWS::Lambda::EventSourceMapping", Map.of(
                "BatchSize", 100, "MaximumBatchingWindowInSeconds", 5));
        synthesized.template().hasResourceProperties("AWS::SQS::Queue", Map.of(
                "SqsManagedSseEnabled", true,
                "RedrivePolicy", Match.objectLike(Map.of("maxReceiveCount", 5))));
    }

    @Test
    void theWorkerMayReadItsManifestWriteOutcomesCallTwoApiRoutesAndInvokeTheConfiguredModelsOnly() throws Exception {
        Set<String> actions = actionsOf("WorkerRole");
        assertThat(actions).containsExactlyInAnyOrder("logs:CreateLogStream", "logs:PutLogEvents", "s3:GetObject",
                "s3:PutObject", "execute-api:Invoke", "bedrock:InvokeModel", "bedrock:CountTokens");
        String policy = policyText("WorkerRole");
        assertThat(policy).contains("/runs/*/run.json", "/runs/*/outcomes/*", "/POST/v1/requests", "/GET/v1/models",
                "foundation-model/amazon.nova-lite-v1:0", "inference-profile/us.anthropic.claude-sonnet-4");
        assertThat(policy).doesNotContain("\"*\"", "execute-api:*", "bedrock:*\"", "s3:*");
    }

    @Test
    void theRecorderWritesOnlyShaperOutcomesAndTheReconcilerOnlyReports() throws Exception {
        assertThat(actionsOf("RecorderRole")).contains("s3:PutObject").doesNotContain("s3:GetObject",
                "s3:ListBucket");
        assertThat(policyText("RecorderRole")).contains("/runs/*/outcomes/shaper/*");
        assertThat(actionsOf("ReconcilerRole")).containsExactlyInAnyOrder("logs:CreateLogStream", "logs:PutLogEvents",
                "s3:ListBucket", "s3:GetObject", "s3:PutObject");
        assertThat(policyText("ReconcilerRole")).contains("/runs/*/report/*", "\"s3:prefix\"");
    }

    @Test
    void theRunsRoleInvokesItsTwoFunctionsReadsItemsAndStartsOnlyItsOwnChildExecutions() throws Exception {
        String policy = policyText("RunRole");
        assertThat(actionsOf("RunRole")).contains("lambda:InvokeFunction", "s3:GetObject", "states:StartExecution",
                "states:DescribeExecution", "states:StopExecution");
        assertThat(policy).contains("/runs/*/items.json", ":stateMachine:TrafficShaperLoadTest-run\"",
                ":execution:TrafficShaperLoadTest-run/*");
    }

    @Test
    void theStackIsPointedAtAShaperStackByItsApiStageUrlAndBusAndOutputsWhatTheCliReads() {
        synthesized.template().hasParameter(TrafficShaperLoadTestStack.API_PARAMETER, Map.of("Type", "String"));
        synthesized.template().hasParameter(TrafficShaperLoadTestStack.BUS_PARAMETER, Map.of("Type", "String"));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> outputs = (Map<String, Map<String, Object>>) synthesized.json().get("Outputs");
        assertThat(outputs.keySet()).contains("StateMachineArn", "ResultsBucketName", "ShaperApiStageUrl",
                "WorkerMemoryMb");
        assertThat(outputs.get("WorkerMemoryMb").get("Value"))
                .isEqualTo(Integer.toString(TrafficShaperLoadTestStack.WORKER_MEMORY_MB));
    }

    @Test
    void theResultsBucketIsPrivateEncryptedLoggedAndExpiresRuns() {
        synthesized.template().hasResourceProperties("AWS::S3::Bucket", Map.of(
                "PublicAccessBlockConfiguration", Map.of("BlockPublicAcls", true, "BlockPublicPolicy", true,
                        "IgnorePublicAcls", true, "RestrictPublicBuckets", true),
                "LoggingConfiguration", Match.objectLike(Map.of("LogFilePrefix", "results/")),
                "LifecycleConfiguration", Map.of("Rules", Match.arrayWith(List.of(Match.objectLike(Map.of(
                        "Id", "expire-runs", "ExpirationInDays", 30)))))));
    }

    @Test
    void aDefinitionWithoutADistributedMapOrWithAnUnknownPlaceholderIsRefusedAtSynth(@TempDir Path dir)
            throws Exception {
        String original = Files.readString(SynthesizedLoadTestStack.STATEMACHINES.resolve(RunDefinition.FILE));
        Set<String> filled = Set.of("Partition", "LoadTestWorkerFunctionArn", "LoadTestReconcilerFunctionArn",
                "LoadTestResultsBucket");
        Files.writeString(dir.resolve(RunDefinition.FILE), original.replace("\"DISTRIBUTED\"", "\"INLINE\""));
        assertThatThrownBy(() -> RunDefinition.read(dir, filled)).hasMessageContaining("DISTRIBUTED");
        Files.writeString(dir.resolve(RunDefinition.FILE), original.replace("${LoadTestResultsBucket}",
                "${SomethingElse}"));
        assertThatThrownBy(() -> RunDefinition.read(dir, filled)).hasMessageContaining("${SomethingElse}");
    }

    private Map<String, Object> only(String type) {
        List<Map<String, Object>> found = synthesized.resourcesOfType(type);
        assertThat(found).hasSize(1);
        return found.get(0);
    }

    /** Every IAM policy statement attached to the role whose logical id starts with {@code rolePrefix}. */
    private String policyText(String rolePrefix) throws Exception {
        StringBuilder text = new StringBuilder();
        for (Map<String, Object> policy : synthesized.resourcesOfType("AWS::IAM::Policy")) {
            String json = JSON.writeValueAsString(policy);
            if (json.contains("\"Ref\":\"" + rolePrefix)) {
                text.append(json);
            }
        }
        assertThat(text).as("policies of " + rolePrefix).isNotEmpty();
        return text.toString();
    }

    private Set<String> actionsOf(String rolePrefix) throws Exception {
        Set<String> actions = new java.util.TreeSet<>();
        JsonNode policies = JSON.readTree("[" + policyText(rolePrefix).replace("}{", "},{") + "]");
        for (JsonNode policy : policies) {
            for (JsonNode statement : policy.path("Properties").path("PolicyDocument").path("Statement")) {
                JsonNode action = statement.path("Action");
                if (action.isArray()) {
                    action.forEach(a -> actions.add(a.asText()));
                } else {
                    actions.add(action.asText());
                }
            }
        }
        return actions;
    }
}
