package dev.trafficshaper.simulator.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.model.ModelCatalog;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.AccessDeniedException;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.CountTokensResponse;
import software.amazon.awssdk.services.bedrockruntime.model.InternalServerException;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelResponse;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.ModelErrorException;
import software.amazon.awssdk.services.bedrockruntime.model.ModelNotReadyException;
import software.amazon.awssdk.services.bedrockruntime.model.ModelTimeoutException;
import software.amazon.awssdk.services.bedrockruntime.model.ResourceNotFoundException;
import software.amazon.awssdk.services.bedrockruntime.model.ServiceQuotaExceededException;
import software.amazon.awssdk.services.bedrockruntime.model.ServiceUnavailableException;
import software.amazon.awssdk.services.bedrockruntime.model.StopReason;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;
import software.amazon.awssdk.services.bedrockruntime.model.ValidationException;

/**
 * The simulator through the real {@link BedrockRuntimeClient} with retries off: what a caller of
 * Bedrock sees is what the shaper's Bedrock Processor will see. Latency scale 0, so nothing waits.
 */
class BedrockSimulatorTest {

    private static final String NOVA_LITE = "amazon.nova-lite-v1:0";
    private static final String MODELS = """
            {"models": {
              "nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 4000000}, "maxTokens": 10000},
              "tiny": {"modelId": "sim.tiny-v1:0", "quotas": {"tpm": 1000}, "maxTokens": 800},
              "claude": {"modelId": "anthropic.claude-sim-v1:0", "quotas": {"tpm": 2000000, "outputBurndown": 5}}
            }}""";
    // A frozen clock: the tiny bucket never refills between requests, so throttling is exact.
    private static final Clock FROZEN = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);

    private static BedrockSimulator simulator;
    private static BedrockRuntimeClient bedrock;

    @BeforeAll
    static void start() {
        simulator = BedrockSimulator.builder().catalog(ModelCatalog.parse(MODELS)).latencyScale(0)
                .clock(FROZEN).build().start();
        bedrock = client(simulator);
    }

    @AfterAll
    static void stop() {
        bedrock.close();
        simulator.close();
    }

    static BedrockRuntimeClient client(BedrockSimulator target) {
        return BedrockRuntimeClient.builder()
                .endpointOverride(target.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "sim")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    @Test
    void converseWithinQuotaSucceedsWithTheSimulatedUsage() {
        ConverseResponse response = bedrock.converse(converse(NOVA_LITE, "hello world!", 100)
                .overrideConfiguration(o -> o.putHeader(SimulationHooks.OUTPUT_TOKENS, "42")).build());

        // "hello world!" is 12 characters: 3 tokens, plus 3 for the user turn.
        assertThat(response.usage().inputTokens()).isEqualTo(6);
        assertThat(response.usage().outputTokens()).isEqualTo(42);
        assertThat(response.usage().totalTokens()).isEqualTo(48);
        assertThat(response.stopReason()).isEqualTo(StopReason.END_TURN);
        assertThat(response.output().message().role()).isEqualTo(ConversationRole.ASSISTANT);
        assertThat(response.output().message().content().get(0).text()).hasSize(42 * 4);
        assertThat(response.metrics().latencyMs()).isNotNull();
        assertThat(response.responseMetadata().requestId()).isNotBlank();
    }

    @Test
    void outputBeyondMaxTokensIsCutAndReportedAsMaxTokens() {
        ConverseResponse response = bedrock.converse(converse("nova-lite", "summarise", 50).build());

        assertThat(response.usage().outputTokens()).isEqualTo(50);
        assertThat(response.stopReason()).isEqualTo(StopReason.MAX_TOKENS);
    }

    @Test
    void declaredInputSizeAndCacheTokensReplaceTheCountedOnes() {
        ConverseResponse response = bedrock.converse(converse(NOVA_LITE, "tiny body", 300)
                .overrideConfiguration(o -> o.putHeader(SimulationHooks.INPUT_TOKENS, "18000")
                        .putHeader(SimulationHooks.CACHE_READ_TOKENS, "500"))
                .build());

        assertThat(response.usage().inputTokens()).isEqualTo(18_000);
        assertThat(response.usage().outputTokens()).isEqualTo(300);
        assertThat(response.usage().cacheReadInputTokens()).isEqualTo(500);
        assertThat(response.usage().totalTokens()).isEqualTo(18_800);
    }

    @Test
    void aRequestOverTheQuotaIsThrottledWith429() {
        // 6 input + 600 reserved of the 1000-token bucket, settled to 6 + 500 used.
        bedrock.converse(converse("sim.tiny-v1:0", "hello world!", 600)
                .overrideConfiguration(o -> o.putHeader(SimulationHooks.OUTPUT_TOKENS, "500")).build());

        assertThatThrownBy(() -> bedrock.converse(converse("sim.tiny-v1:0", "hello world!", 600).build()))
                .isInstanceOf(ThrottlingException.class)
                .satisfies(e -> assertThat(((ThrottlingException) e).statusCode()).isEqualTo(429));
        ModelStats tiny = simulator.stats("tiny").orElseThrow();
        assertThat(tiny.calls()).isEqualTo(2);
        assertThat(tiny.successes()).isEqualTo(1);
        assertThat(tiny.throttles()).isEqualTo(1);
    }

    static Stream<Arguments> errorClasses() {
        return Stream.of(
                Arguments.of("ThrottlingException", ThrottlingException.class, 429),
                Arguments.of("ModelNotReadyException", ModelNotReadyException.class, 429),
                Arguments.of("ServiceUnavailableException", ServiceUnavailableException.class, 503),
                Arguments.of("InternalServerException", InternalServerException.class, 500),
                Arguments.of("ModelTimeoutException", ModelTimeoutException.class, 408),
                Arguments.of("ModelErrorException", ModelErrorException.class, 424),
                Arguments.of("ValidationException", ValidationException.class, 400),
                Arguments.of("ServiceQuotaExceededException", ServiceQuotaExceededException.class, 400),
                Arguments.of("AccessDeniedException", AccessDeniedException.class, 403),
                Arguments.of("ResourceNotFoundException", ResourceNotFoundException.class, 404));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("errorClasses")
    void eachErrorClassRaisesItsSdkExceptionWithItsStatus(String code, Class<? extends AwsServiceException> type,
                                                          int status) {
        assertThatThrownBy(() -> bedrock.converse(converse(NOVA_LITE, "fail please", 100)
                .overrideConfiguration(o -> o.putHeader(SimulationHooks.FAULT, code)).build()))
                .isInstanceOf(type)
                .satisfies(e -> {
                    AwsServiceException aws = (AwsServiceException) e;
                    assertThat(aws.statusCode()).isEqualTo(status);
                    assertThat(aws.awsErrorDetails().errorCode()).isEqualTo(code);
                    assertThat(aws.awsErrorDetails().errorMessage()).contains(code);
                });
    }

    @Test
    void anUnknownModelIsResourceNotFound() {
        assertThatThrownBy(() -> bedrock.converse(converse("amazon.nova-huge-v9:0", "hi", 10).build()))
                .isInstanceOf(ResourceNotFoundException.class)
                .satisfies(e -> assertThat(((ResourceNotFoundException) e).statusCode()).isEqualTo(404));
    }

    @Test
    void maxTokensOverTheModelLimitIsAValidationError() {
        assertThatThrownBy(() -> bedrock.converse(converse(NOVA_LITE, "hi", 10_001).build()))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("10000");
    }

    @Test
    void injectedServerErrorsFollowTheConfiguredRate() {
        try (BedrockSimulator failing = BedrockSimulator.builder().catalog(ModelCatalog.parse(MODELS))
                .latencyScale(0).faults(new Faults(1.0, 0, 1_000)).build().start();
             BedrockRuntimeClient client = client(failing)) {
            assertThatThrownBy(() -> client.converse(converse(NOVA_LITE, "hi", 10).build()))
                    .isInstanceOf(InternalServerException.class);
            assertThat(failing.stats("nova-lite").orElseThrow().errors()).isEqualTo(1);
        }
    }

    @Test
    void invokeModelAnswersInTheNovaShapeWithTokenCountHeaders() throws Exception {
        String body = """
                {"messages": [{"role": "user", "content": [{"text": "hello world!"}]}],
                 "inferenceConfig": {"max_new_tokens": 20}}""";
        InvokeModelResponse response = bedrock.invokeModel(r -> r.modelId(NOVA_LITE)
                .contentType("application/json").accept("application/json")
                .body(SdkBytes.fromUtf8String(body)));

        assertThat(response.sdkHttpResponse().firstMatchingHeader("X-Amzn-Bedrock-Input-Token-Count")).hasValue("6");
        assertThat(response.sdkHttpResponse().firstMatchingHeader("X-Amzn-Bedrock-Output-Token-Count")).hasValue("20");
        assertThat(response.sdkHttpResponse().firstMatchingHeader("X-Amzn-Bedrock-Invocation-Latency")).isPresent();
        assertThat(response.contentType()).isEqualTo("application/json");
        JsonNode json = new ObjectMapper().readTree(response.body().asUtf8String());
        assertThat(json.at("/usage/outputTokens").asLong()).isEqualTo(20);
        assertThat(json.at("/stopReason").asText()).isEqualTo("max_tokens");
        assertThat(json.at("/output/message/content/0/text").asText()).hasSize(80);
    }

    @Test
    void invokeModelAnswersAnAnthropicBodyInTheAnthropicShape() throws Exception {
        String body = """
                {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1000, "system": "be brief",
                 "messages": [{"role": "user", "content": "hello world!"}]}""";
        InvokeModelResponse response = bedrock.invokeModel(r -> r.modelId("anthropic.claude-sim-v1:0")
                .body(SdkBytes.fromUtf8String(body)));

        JsonNode json = new ObjectMapper().readTree(response.body().asUtf8String());
        // "hello world!" 3 + "be brief" 2 + one turn 3.
        assertThat(json.at("/usage/input_tokens").asLong()).isEqualTo(8);
        assertThat(json.at("/usage/output_tokens").asLong()).isEqualTo(300);
        assertThat(json.at("/stop_reason").asText()).isEqualTo("end_turn");
        assertThat(json.at("/content/0/type").asText()).isEqualTo("text");
    }

    @Test
    void invokeModelRejectsABodyOfNoKnownShape() {
        assertThatThrownBy(() -> bedrock.invokeModel(r -> r.modelId(NOVA_LITE)
                .body(SdkBytes.fromUtf8String("{\"question\": 42}"))))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void countTokensCountsAConverseInputWithoutUsingTheQuota() {
        long callsBefore = simulator.stats("claude").orElseThrow().calls();
        CountTokensResponse response = bedrock.countTokens(r -> r.modelId("anthropic.claude-sim-v1:0")
                .input(i -> i.converse(c -> c.messages(userMessage("hello world!")))));

        assertThat(response.inputTokens()).isEqualTo(6);
        assertThat(simulator.stats("claude").orElseThrow().calls()).isEqualTo(callsBefore);
    }

    @Test
    void countTokensCountsAnInvokeModelBody() {
        String body = "{\"prompt\": \"hello world!\", \"max_gen_len\": 10}";
        CountTokensResponse response = bedrock.countTokens(r -> r.modelId(NOVA_LITE)
                .input(i -> i.invokeModel(m -> m.body(SdkBytes.fromUtf8String(body)))));

        assertThat(response.inputTokens()).isEqualTo(6);
    }

    @Test
    void statsEndpointReportsCountersPerModel() throws Exception {
        bedrock.converse(converse("claude", "hi", 10).build());
        JsonNode stats = new ObjectMapper().readTree(
                URI.create(simulator.endpoint() + BedrockHttpHandler.STATS_PATH).toURL());

        assertThat(stats.at("/models/claude/modelId").asText()).isEqualTo("anthropic.claude-sim-v1:0");
        assertThat(stats.at("/models/claude/successes").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(stats.at("/total/calls").asLong()).isGreaterThanOrEqualTo(1);
    }

    private static ConverseRequest.Builder converse(String modelId, String text, int maxTokens) {
        return ConverseRequest.builder().modelId(modelId).messages(userMessage(text))
                .inferenceConfig(c -> c.maxTokens(maxTokens));
    }

    private static Message userMessage(String text) {
        return Message.builder().role(ConversationRole.USER).content(ContentBlock.fromText(text)).build();
    }
}
