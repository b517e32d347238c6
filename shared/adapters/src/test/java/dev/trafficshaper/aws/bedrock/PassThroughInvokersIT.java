package dev.trafficshaper.aws.bedrock;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.InvokeModelRequest;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ServiceTier;
import dev.trafficshaper.quota.TokenUsage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;

/**
 * What goes on the wire, pinned against a recording server on loopback: the caller's body byte
 * for byte, the path of each API, SigV4 scoped to {@code bedrock} or {@code bedrock-mantle} (or a
 * bearer API key), InvokeModel's tier header; and the usage each shape's answer reports.
 */
class PassThroughInvokersIT {

    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": {
              "converse": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000}},
              "native": {"modelId": "anthropic.claude-haiku-v1:0", "backend": "invoke-model", "quotas": {"tpm": 1000},
                         "serviceTiers": ["flex"]},
              "chat": {"modelId": "openai.gpt-5.6", "backend": "mantle-chat-completions",
                       "quotas": {"inputTpm": 10, "outputTpm": 10}},
              "chat-openai-path": {"modelId": "openai.gpt-5.5", "backend": "mantle-chat-completions",
                       "quotas": {"inputTpm": 10, "outputTpm": 10}, "pathPrefix": "/openai/v1"},
              "responses": {"modelId": "openai.gpt-5.6", "backend": "mantle-responses",
                            "quotas": {"inputTpm": 10, "outputTpm": 10}},
              "messages": {"modelId": "anthropic.claude-sonnet-5", "backend": "mantle-messages",
                           "quotas": {"inputTpm": 10, "outputTpm": 10}},
              "messages-key": {"modelId": "anthropic.claude-opus-5", "backend": "mantle-messages",
                           "quotas": {"inputTpm": 10, "outputTpm": 10}, "auth": "api-key"}
            }}""");
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    record Seen(String path, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }
    }

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private volatile int status = 200;
    private volatile String answer = "{}";
    private volatile Map<String, String> answerHeaders = Map.of();
    private HttpServer server;
    private BedrockRuntimeClient client;
    private BedrockInvokers invokers;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", exchange -> {
            try (exchange) {
                seen.add(new Seen(exchange.getRequestURI().getRawPath(), Map.copyOf(exchange.getRequestHeaders()),
                        new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
                byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
                answerHeaders.forEach(exchange.getResponseHeaders()::set);
                exchange.sendResponseHeaders(status, bytes.length);
                exchange.getResponseBody().write(bytes);
            }
        });
        server.start();
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        client = BedrockInvokers.withoutRetries(BedrockRuntimeClient.builder().endpointOverride(endpoint)
                .region(Region.US_WEST_2).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "s"))),
                TIMEOUT).build();
        invokers = BedrockInvokers.create(client, UrlConnectionHttpClient.create(), () -> "bedrock-api-key-1");
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            converse         | /model/amazon.nova-lite-v1%3A0/converse | /us-west-2/bedrock/aws4_request
            chat             | /v1/chat/completions                     | /us-west-2/bedrock-mantle/aws4_request
            chat-openai-path | /openai/v1/chat/completions              | /us-west-2/bedrock-mantle/aws4_request
            responses        | /v1/responses                            | /us-west-2/bedrock-mantle/aws4_request
            messages         | /anthropic/v1/messages                   | /us-west-2/bedrock-mantle/aws4_request
            """)
    void theBodyGoesByteForByteToTheApisPathSignedForItsService(String model, String path, String scope) {
        String body = "{ \"messages\" :[{\"role\":\"user\",\"content\":[{\"text\":\"h\u00e9llo\"},"
                + "{\"image\":{\"format\":\"png\",\"source\":{\"bytes\":\"iVBORw0K\"}}}]}],"
                + "\"toolConfig\":{\"tools\":[]},  \"x\": 1.50e0 }";

        invokers.invoke(CATALOG.require(model), body, TIMEOUT);

        Seen request = seen.get(0);
        assertThat(request.body()).isEqualTo(body);
        assertThat(request.path()).isEqualTo(path);
        assertThat(request.header("Authorization")).startsWith("AWS4-HMAC-SHA256 Credential=AKIDTEST/").contains(scope);
    }

    @Test
    void aMantleModelWithAnApiKeySendsItAsABearerToken() {
        invokers.invoke(CATALOG.require("messages-key"), "{\"max_tokens\":1}", TIMEOUT);

        assertThat(seen.get(0).header("Authorization")).isEqualTo("Bearer bedrock-api-key-1");
        assertThat(seen.get(0).header("anthropic-version")).isEqualTo("2023-06-01");
    }

    @Test
    void invokeModelSendsTheNativeBodyAsItCameWithTheTierHeaderAndReadsUsageFromHeaders() {
        String nativeBody = "{\"anthropic_version\":\"bedrock-2023-05-31\", \"max_tokens\":5,\"messages\":[]}";
        answer = "{\"type\":\"message\",\"content\":[],\"stop_reason\":\"end_turn\"}";
        answerHeaders = Map.of("X-Amzn-Bedrock-Input-Token-Count", "120", "X-Amzn-Bedrock-Output-Token-Count", "7",
                "X-Amzn-Bedrock-Cache-Read-Input-Token-Count", "1000",
                "X-Amzn-Bedrock-Cache-Write-Input-Token-Count", "30", "X-Amzn-Bedrock-Invocation-Latency", "842");

        BedrockOutcome outcome = invokers.invoke(CATALOG.require("native"), new InvokeModelRequest(
                nativeBody.getBytes(StandardCharsets.UTF_8), ServiceTier.FLEX).toPayload().text(), TIMEOUT);

        assertThat(seen.get(0).body()).isEqualTo(nativeBody);
        assertThat(seen.get(0).path()).isEqualTo("/model/anthropic.claude-haiku-v1%3A0/invoke");
        assertThat(seen.get(0).header("X-Amzn-Bedrock-Service-Tier")).isEqualTo("flex");
        assertThat(outcome).isInstanceOfSatisfying(BedrockOutcome.Succeeded.class, s -> {
            assertThat(s.usage()).isEqualTo(new TokenUsage(120, 7, 1000, 30));
            assertThat(s.stopReason()).isEqualTo("end_turn");
            assertThat(s.responseJson()).isEqualTo(answer);
            assertThat(s.serviceMillis()).as("Bedrock's own latency").isEqualTo(842);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | {"output":{"message":{"role":"assistant","content":[]}},"stopReason":"tool_use","usage":{"inputTokens":10,"outputTokens":4,"totalTokens":914,"cacheReadInputTokens":800,"cacheWriteInputTokens":100},"metrics":{"latencyMs":377}} | 10 | 4 | 800 | 100 | tool_use
            chat      | {"choices":[{"finish_reason":"length","message":{}}],"usage":{"prompt_tokens":1500,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":1024}}}                                      | 476 | 9 | 1024 | 0 | length
            responses | {"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":50,"output_tokens":3,"input_tokens_details":{"cached_tokens":0}}}                    | 50 | 3 | 0 | 0 | max_output_tokens
            messages  | {"stop_reason":"end_turn","usage":{"input_tokens":12,"output_tokens":6,"cache_read_input_tokens":2000,"cache_creation_input_tokens":0}}                                                  | 12 | 6 | 2000 | 0 | end_turn
            """)
    void eachShapeReadsItsOwnUsage(String model, String response, long input, long output, long cacheRead,
                                   long cacheWrite, String stop) {
        answer = response;

        BedrockOutcome outcome = invokers.invoke(CATALOG.require(model), "{}", TIMEOUT);

        assertThat(outcome).isInstanceOfSatisfying(BedrockOutcome.Succeeded.class, s -> {
            assertThat(s.usage()).isEqualTo(new TokenUsage(input, output, cacheRead, cacheWrite));
            assertThat(s.stopReason()).isEqualTo(stop);
            assertThat(s.responseJson()).as("the native response as sent").isEqualTo(response);
            assertThat(s.serviceMillis()).as("Converse says its latency; the OpenAI and Anthropic shapes do not")
                    .isEqualTo(model.equals("converse") ? 377 : BedrockOutcome.Succeeded.UNKNOWN_SERVICE);
        });
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            chat      | 429 | {"error":{"message":"Rate limit","type":"tokens","code":"rate_limit_exceeded"}} | Throttled
            messages  | 429 | {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}    | Throttled
            messages  | 503 | {"type":"error","error":{"type":"overloaded_error","message":"capacity"}}    | Throttled
            responses | 503 | {"error":{"message":"at capacity","type":"server_error"}}                      | Throttled
            responses | 500 | {"error":{"message":"oops","type":"server_error"}}                             | Transient
            chat      | 400 | {"error":{"message":"bad","type":"invalid_request_error"}}                     | Rejected
            converse  | 503 | {"message":"unavailable"}                                                      | Transient
            """)
    void errorsAreSortedByTheApisOwnStyle(String model, int code, String response, String kind) {
        status = code;
        answer = response;
        if (model.equals("converse")) {
            answerHeaders = Map.of("x-amzn-ErrorType", "ServiceUnavailableException");
        }

        BedrockOutcome outcome = invokers.invoke(CATALOG.require(model), "{}", TIMEOUT);

        assertThat(outcome.getClass().getSimpleName()).isEqualTo(kind);
    }
}
