package dev.trafficshaper.simulator.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.BedrockOutcome.Rejected;
import dev.trafficshaper.bedrock.BedrockOutcome.Succeeded;
import dev.trafficshaper.bedrock.BedrockOutcome.Throttled;
import dev.trafficshaper.bedrock.BedrockOutcome.Transient;
import dev.trafficshaper.bedrock.RejectionKind;
import dev.trafficshaper.bedrock.TransientKind;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.FailureReason;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;

/**
 * The Converse invoker (the caller's body, signed with the SDK's signer, sent with its HTTP client)
 * against the Bedrock simulator: what the Bedrock Processor will see for a success, a throttle
 * and a bad model id. Latency scale 0 and a frozen
 * quota clock, so nothing waits and the tiny quota never refills between calls.
 */
class InvokerAgainstSimulatorIT {

    private static final String MODELS = """
            {"models": {
              "nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 4000000}, "maxTokens": 10000},
              "tiny": {"modelId": "sim.tiny-v1:0", "quotas": {"tpm": 1000}, "maxTokens": 800}
            }}""";
    private static final Clock FROZEN = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ModelCatalog CATALOG = ModelCatalog.parse(MODELS);

    private static BedrockSimulator simulator;
    private static BedrockRuntimeClient client;
    private static BedrockInvokers invoker;
    private final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void start() {
        simulator = BedrockSimulator.builder().catalog(CATALOG).latencyScale(0).defaultOutputTokens(42)
                .clock(FROZEN).build().start();
        client = client(simulator.endpoint());
        invoker = BedrockInvokers.forRuntimeClient(client);
    }

    @AfterAll
    static void stop() {
        client.close();
        simulator.close();
    }

    @Test
    void withinQuotaTheCallSucceedsWithTheSimulatedUsage() throws Exception {
        BedrockOutcome outcome = invoker.invoke(CATALOG.require("nova-lite"), converse("hello world!", 100), TIMEOUT);

        // "hello world!" is 3 tokens plus 3 for the user turn; the simulator writes 42.
        Succeeded success = (Succeeded) outcome;
        assertThat(success.usage()).isEqualTo(TokenUsage.of(6, 42));
        assertThat(success.stopReason()).isEqualTo("end_turn");
        JsonNode body = json.readTree(success.responseJson());
        assertThat(body.at("/output/message/role").asText()).isEqualTo("assistant");
        assertThat(body.at("/output/message/content/0/text").asText()).hasSize(42 * 4);
        assertThat(body.at("/stopReason").asText()).isEqualTo("end_turn");
        assertThat(body.at("/usage/inputTokens").asLong()).isEqualTo(6);
        assertThat(body.at("/usage/outputTokens").asLong()).isEqualTo(42);
        assertThat(body.at("/usage/totalTokens").asLong()).isEqualTo(48);
        assertThat(success.serviceMillis()).as("the simulator's latency, as Converse's metrics.latencyMs")
                .isEqualTo(body.at("/metrics/latencyMs").asLong()).isNotNegative();
    }

    @Test
    void aTruncatedAnswerIsASuccessNotAFailure() {
        BedrockOutcome outcome = invoker.invoke(CATALOG.require("nova-lite"), converse("summarise", 10), TIMEOUT);

        assertThat(outcome).isInstanceOfSatisfying(Succeeded.class, s -> {
            assertThat(s.stopReason()).isEqualTo("max_tokens");
            assertThat(s.usage().outputTokens()).isEqualTo(10);
        });
    }

    @Test
    void overTheQuotaTheCallIsThrottled() {
        ModelConfig tiny = CATALOG.require("tiny");
        // 2,000 characters are 500 input tokens: the first call reserves 903 of the 1,000-token
        // bucket and settles to 545, which leaves too little to reserve the second.
        String longPrompt = "word ".repeat(400);

        BedrockOutcome first = invoker.invoke(tiny, converse(longPrompt, 400), TIMEOUT);
        BedrockOutcome second = invoker.invoke(tiny, converse(longPrompt, 400), TIMEOUT);

        assertThat(first).isInstanceOf(Succeeded.class);
        assertThat(second).isInstanceOfSatisfying(Throttled.class, t -> {
            assertThat(t.httpStatus()).isEqualTo(429);
            assertThat(t.retryable()).isTrue();
            assertThat(t.failureReason()).isEqualTo(FailureReason.THROTTLED);
        });
        assertThat(simulator.stats("tiny").orElseThrow().throttles()).isEqualTo(1);
    }

    @Test
    void anUnknownModelIsRejectedAsNotFound() {
        ModelConfig ghost = ModelConfig.of("ghost", "amazon.nova-huge-v9:0", CATALOG.require("nova-lite").quota());

        BedrockOutcome outcome = invoker.invoke(ghost, converse("hi", 10), TIMEOUT);

        assertThat(outcome).isInstanceOfSatisfying(Rejected.class, r -> {
            assertThat(r.kind()).isEqualTo(RejectionKind.RESOURCE_NOT_FOUND);
            assertThat(r.httpStatus()).isEqualTo(404);
            assertThat(r.retryable()).isFalse();
        });
    }

    @Test
    void maxTokensOverTheModelLimitIsRejectedAsInvalid() {
        BedrockOutcome outcome = invoker.invoke(CATALOG.require("nova-lite"), converse("hi", 10_001), TIMEOUT);

        assertThat(outcome).isInstanceOfSatisfying(Rejected.class, r -> {
            assertThat(r.kind()).isEqualTo(RejectionKind.VALIDATION);
            assertThat(r.failureReason()).isEqualTo(FailureReason.INVALID_REQUEST);
        });
    }

    @Test
    void whatTheOldReaderRefusedNowGoesThroughAndRuns() throws Exception {
        // tools, an image by reference and a guardrail: the shaper used to refuse these after queueing
        String body = """
                {"messages":[{"role":"user","content":[{"text":"describe"},
                  {"image":{"format":"png","source":{"s3Location":{"uri":"s3://bucket/cat.png"}}}}]}],
                 "toolConfig":{"tools":[{"toolSpec":{"name":"lookup","inputSchema":{"json":{"type":"object"}}}}]},
                 "guardrailConfig":{"guardrailIdentifier":"g1","guardrailVersion":"1"},
                 "additionalModelRequestFields":{"top_k":5},
                 "inferenceConfig":{"maxTokens":100}}""";

        BedrockOutcome outcome = invoker.invoke(CATALOG.require("nova-lite"), body, TIMEOUT);

        assertThat(outcome).isInstanceOf(Succeeded.class);
        // a referenced image costs the rule's maximum, 1,600 tokens
        assertThat(((Succeeded) outcome).usage().inputTokens()).isGreaterThan(1_600);
    }

    @Test
    void noAnswerWithinTheTimeoutIsATransientClientTimeout() throws Exception {
        // Connections complete in the listen backlog, but nothing ever reads or answers them.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             BedrockRuntimeClient silentClient = client(URI.create("http://127.0.0.1:" + silent.getLocalPort()))) {
            BedrockOutcome outcome = BedrockInvokers.forRuntimeClient(silentClient)
                    .invoke(CATALOG.require("nova-lite"), converse("hi", 10), Duration.ofMillis(200));

            assertThat(outcome).isInstanceOfSatisfying(Transient.class,
                    t -> assertThat(t.kind()).isEqualTo(TransientKind.CLIENT_TIMEOUT));
        }
    }

    @Test
    void aRefusedConnectionIsATransientConnectionFailure() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        try (BedrockRuntimeClient refused = client(URI.create("http://127.0.0.1:" + closedPort))) {
            BedrockOutcome outcome = BedrockInvokers.forRuntimeClient(refused)
                    .invoke(CATALOG.require("nova-lite"), converse("hi", 10), TIMEOUT);

            assertThat(outcome).isInstanceOfSatisfying(Transient.class,
                    t -> assertThat(t.kind()).isEqualTo(TransientKind.CONNECTION_REFUSED));
        }
    }

    @Test
    void aClientThatWouldRetryIsRefused() {
        try (BedrockRuntimeClient retrying = baseBuilder(simulator.endpoint()).build()) {
            assertThatThrownBy(() -> BedrockInvokers.forRuntimeClient(retrying))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("one attempt");
        }
    }

    private static BedrockRuntimeClient client(URI endpoint) {
        return BedrockInvokers.withoutRetries(baseBuilder(endpoint), TIMEOUT).build();
    }

    private static BedrockRuntimeClientBuilder baseBuilder(URI endpoint) {
        return BedrockRuntimeClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "sim")))
                .httpClient(UrlConnectionHttpClient.create());
    }

    private String converse(String text, int maxTokens) {
        var body = json.createObjectNode();
        body.putArray("messages").addObject().put("role", "user").putArray("content").addObject().put("text", text);
        body.putObject("inferenceConfig").put("maxTokens", maxTokens);
        return body.toString();
    }
}
