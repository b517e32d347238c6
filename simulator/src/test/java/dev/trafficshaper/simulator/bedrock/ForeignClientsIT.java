package dev.trafficshaper.simulator.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.errors.RateLimitException;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.ModelCatalog;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Clients nobody here wrote, against the simulator: boto3 (Converse with tools, an image and a
 * cache point; InvokeModel with an Anthropic body and its token headers; ThrottlingException over
 * quota), the Anthropic Java SDK on the bedrock-mantle Messages API (RateLimitException over
 * quota), and the OpenAI Chat Completions and Responses wire over plain HTTP (the OpenAI Java SDK
 * does not resolve in this build's repository), with the OpenAI error body on a 429.
 */
class ForeignClientsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": {
              "nova": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 100000}},
              "haiku": {"modelId": "anthropic.claude-haiku-v1:0", "backend": "invoke-model", "quotas": {"tpm": 100000}},
              "tiny-nova": {"modelId": "amazon.nova-micro-v1:0", "quotas": {"tpm": 600}},
              "sonnet": {"modelId": "anthropic.claude-sonnet-5", "backend": "mantle-messages",
                         "quotas": {"inputTpm": 2000, "outputTpm": 2000}},
              "gpt": {"modelId": "openai.gpt-5.6", "backend": "mantle-chat-completions",
                      "quotas": {"inputTpm": 2000, "outputTpm": 2000}},
              "gpt-responses": {"modelId": "openai.gpt-5.6", "backend": "mantle-responses",
                      "quotas": {"inputTpm": 2000, "outputTpm": 2000}}
            }}""");
    private static final Clock FROZEN = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    /** About 630 tokens: a few of these fill a 2,000 input-tokens-per-minute quota. */
    private static final String LONG_PROMPT = "word ".repeat(500);

    private BedrockSimulator simulator;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        simulator = BedrockSimulator.builder().catalog(CATALOG).latencyScale(0).defaultOutputTokens(12)
                .clock(FROZEN).build().start();
    }

    @AfterEach
    void stop() {
        simulator.close();
    }

    @Test
    void anthropicsJavaSdkCallsMessagesAndRaisesItsRateLimitExceptionOverQuota() {
        AnthropicClient anthropic = AnthropicOkHttpClient.builder().baseUrl(simulator.endpoint() + "/anthropic")
                .apiKey("bedrock-api-key").maxRetries(0).build();
        try {
            MessageCreateParams params = MessageCreateParams.builder().model("anthropic.claude-sonnet-5")
                    .maxTokens(500).addUserMessage("Hello from the Anthropic SDK").build();
            MessageCreateParams large = params.toBuilder().messages(java.util.List.of())
                    .addUserMessage(LONG_PROMPT).build();

            Message message = anthropic.messages().create(params);

            assertThat(message.content().get(0).text().orElseThrow().text()).isNotEmpty();
            assertThat(message.usage().outputTokens()).isEqualTo(12);
            assertThat(message.usage().inputTokens()).isPositive();
            // each settles to ~630 input tokens of the 2,000 input TPM; within four calls one cannot fit
            assertThatThrownBy(() -> {
                for (int i = 0; i < 4; i++) {
                    anthropic.messages().create(large);
                }
            }).isInstanceOf(RateLimitException.class);
        } finally {
            anthropic.close();
        }
    }

    @Test
    void chatCompletionsAndResponsesAnswerOnTheOpenAiWireAndThrottleWithItsErrorBody() throws Exception {
        HttpResponse<String> chat = post("/v1/chat/completions", """
                {"model":"openai.gpt-5.6","max_completion_tokens":300,"messages":[{"role":"user","content":"hi"}]}""");
        assertThat(chat.statusCode()).isEqualTo(200);
        JsonNode completion = JSON.readTree(chat.body());
        assertThat(completion.path("object").asText()).isEqualTo("chat.completion");
        assertThat(completion.at("/choices/0/message/content").asText()).isNotEmpty();
        assertThat(completion.at("/usage/completion_tokens").asLong()).isEqualTo(12);

        HttpResponse<String> responses = post("/v1/responses", """
                {"model":"openai.gpt-5.6","max_output_tokens":300,"input":"hi"}""");
        assertThat(responses.statusCode()).isEqualTo(200);
        JsonNode response = JSON.readTree(responses.body());
        assertThat(response.path("status").asText()).isEqualTo("completed");
        assertThat(response.at("/output/0/content/0/type").asText()).isEqualTo("output_text");

        HttpResponse<String> throttled = null;
        for (int i = 0; i < 10 && (throttled == null || throttled.statusCode() == 200); i++) {
            throttled = post("/v1/chat/completions", "{\"model\":\"openai.gpt-5.6\",\"max_completion_tokens\":300,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"" + LONG_PROMPT + "\"}]}");
        }
        assertThat(throttled.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(throttled.body()).at("/error/code").asText()).isEqualTo("rate_limit_exceeded");
    }

    @Test
    void messagesThrottleWithTheAnthropicErrorBodyAndCapacityIsA503() throws Exception {
        HttpResponse<String> overloaded = send(HttpRequest.newBuilder(URI.create(simulator.endpoint()
                        + "/anthropic/v1/messages")).header("x-sim-fault", "ServiceUnavailable")
                .POST(HttpRequest.BodyPublishers.ofString("""
                        {"model":"anthropic.claude-sonnet-5","max_tokens":10,"messages":[{"role":"user","content":"x"}]}""")));
        assertThat(overloaded.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(overloaded.body()).at("/error/type").asText()).isEqualTo("overloaded_error");

        HttpResponse<String> last = null;
        for (int i = 0; i < 10 && (last == null || last.statusCode() == 200); i++) {
            last = post("/anthropic/v1/messages", "{\"model\":\"anthropic.claude-sonnet-5\",\"max_tokens\":600,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"" + LONG_PROMPT + "\"}]}");
        }
        assertThat(last.statusCode()).isEqualTo(429);
        JsonNode error = JSON.readTree(last.body());
        assertThat(error.path("type").asText()).isEqualTo("error");
        assertThat(error.at("/error/type").asText()).isEqualTo("rate_limit_error");
    }

    @Test
    void boto3ConverseWithToolsAnImageAndACachePointAndInvokeModelWithAnAnthropicBody() throws Exception {
        Path script = Files.createTempFile("boto3-against-simulator", ".py");
        try (var in = ForeignClientsIT.class.getResourceAsStream("boto3_against_simulator.py")) {
            Files.write(script, in.readAllBytes());
        }
        Process probe = new ProcessBuilder("python3", "-c", "import boto3").redirectErrorStream(true).start();
        assumeTrue(probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0, "python3 with boto3 is needed");

        Process run = new ProcessBuilder("python3", script.toString(), simulator.endpoint().toString())
                .redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue()).as(output).isZero();
        JsonNode result = JSON.readTree(output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow());

        assertThat(result.at("/converse/stopReason").asText()).isEqualTo("tool_use");
        assertThat(result.at("/converse/toolName").asText()).isEqualTo("get_weather");
        assertThat(result.at("/converse/cacheWrite").asLong()).isPositive();
        assertThat(result.at("/converseAgain/cacheRead").asLong()).isEqualTo(result.at("/converse/cacheWrite").asLong());
        assertThat(result.at("/invoke/inputTokensHeader").asLong()).isPositive();
        assertThat(result.at("/invoke/outputTokensHeader").asLong()).isEqualTo(12);
        assertThat(result.at("/invoke/stopReason").asText()).isEqualTo("end_turn");
        assertThat(result.at("/throttle/error").asText()).isEqualTo("ThrottlingException");
        assertThat(result.at("/throttle/status").asInt()).isEqualTo(429);
        Files.deleteIfExists(script);
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(simulator.endpoint() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.header("Content-Type", "application/json")
                .header("Authorization", "Bearer bedrock-api-key").build(), HttpResponse.BodyHandlers.ofString());
    }
}
