package dev.trafficshaper.simulator.bedrock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.BedrockOutcome.Succeeded;
import dev.trafficshaper.bedrock.InvokeModelRequest;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;

/**
 * The production invokers of all five backends against the Bedrock simulator: each shape is
 * served, counted by the same rule the shaper estimates with, caches a repeated prefix (a write,
 * then a read), calls a tool when asked, and is throttled over its quota.
 */
class AllShapesAgainstSimulatorIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock FROZEN = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": {
              "converse": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 10000000}},
              "native": {"modelId": "anthropic.claude-haiku-v1:0", "backend": "invoke-model",
                         "quotas": {"tpm": 10000000}},
              "chat": {"modelId": "openai.gpt-5.6", "backend": "mantle-chat-completions",
                       "quotas": {"inputTpm": 10000000, "outputTpm": 1000000}},
              "responses": {"modelId": "openai.gpt-5.6", "backend": "mantle-responses",
                            "quotas": {"inputTpm": 10000000, "outputTpm": 1000000}},
              "messages": {"modelId": "anthropic.claude-sonnet-5", "backend": "mantle-messages",
                           "quotas": {"inputTpm": 10000000, "outputTpm": 1000000}},
              "tiny-converse": {"modelId": "sim.tiny-v1:0", "quotas": {"tpm": 1000}},
              "tiny-messages": {"modelId": "anthropic.tiny", "backend": "mantle-messages",
                                "quotas": {"inputTpm": 1000, "outputTpm": 1000}},
              "tiny-chat": {"modelId": "openai.tiny", "backend": "mantle-chat-completions",
                            "quotas": {"inputTpm": 1000, "outputTpm": 1000}}
            }}""");

    private static BedrockSimulator simulator;
    private static BedrockRuntimeClient client;
    private static BedrockInvokers invokers;

    @BeforeAll
    static void start() {
        simulator = BedrockSimulator.builder().catalog(CATALOG).latencyScale(0).defaultOutputTokens(20)
                .clock(FROZEN).build().start();
        client = BedrockInvokers.withoutRetries(BedrockRuntimeClient.builder().endpointOverride(simulator.endpoint())
                .region(Region.US_EAST_1).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b"))),
                TIMEOUT).build();
        invokers = BedrockInvokers.forRuntimeClient(client);
    }

    @AfterAll
    static void stop() {
        client.close();
        simulator.close();
    }

    static String body(String model, String system, String question) {
        String text = JSON.valueToTree(question).toString();
        String sys = JSON.valueToTree(system).toString();
        return switch (CATALOG.require(model).backend()) {
            case CONVERSE -> "{\"system\":[{\"text\":" + sys + "},{\"cachePoint\":{\"type\":\"default\"}}],"
                    + "\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":" + text + "}]}],"
                    + "\"inferenceConfig\":{\"maxTokens\":100}}";
            case INVOKE_MODEL -> "{\"anthropic_version\":\"bedrock-2023-05-31\",\"max_tokens\":100,"
                    + "\"system\":[{\"type\":\"text\",\"text\":" + sys + ",\"cache_control\":{\"type\":\"ephemeral\"}}],"
                    + "\"messages\":[{\"role\":\"user\",\"content\":" + text + "}]}";
            case MANTLE_MESSAGES -> "{\"model\":\"" + CATALOG.require(model).modelId() + "\",\"max_tokens\":100,"
                    + "\"system\":[{\"type\":\"text\",\"text\":" + sys + ",\"cache_control\":{\"type\":\"ephemeral\"}}],"
                    + "\"messages\":[{\"role\":\"user\",\"content\":" + text + "}]}";
            case MANTLE_CHAT_COMPLETIONS -> "{\"model\":\"" + CATALOG.require(model).modelId() + "\","
                    + "\"max_completion_tokens\":100,\"messages\":[{\"role\":\"system\",\"content\":" + sys + "},"
                    + "{\"role\":\"user\",\"content\":" + text + "}]}";
            case MANTLE_RESPONSES -> "{\"model\":\"" + CATALOG.require(model).modelId() + "\","
                    + "\"max_output_tokens\":100,\"input\":[{\"role\":\"developer\",\"content\":" + sys + "},"
                    + "{\"role\":\"user\",\"content\":" + text + "}]}";
        };
    }

    private static BedrockOutcome call(String model, String body) {
        ModelConfig config = CATALOG.require(model);
        String request = config.backend() == Backend.INVOKE_MODEL
                ? new InvokeModelRequest(body.getBytes(StandardCharsets.UTF_8), null).toPayload().text() : body;
        return invokers.invoke(config, request, TIMEOUT);
    }

    @ParameterizedTest
    @CsvSource({"converse", "native", "chat", "responses", "messages"})
    void eachShapeIsServedAndCountedByTheRuleTheShaperEstimatesWith(String model) {
        String body = body(model, "Answer in one line.", "What is a token bucket? " + model);
        long estimate = CharacterTokenEstimator.withMargin(0).inputTokens(CATALOG.require(model), Payload.json(body));

        BedrockOutcome outcome = call(model, body);

        assertThat(outcome).isInstanceOfSatisfying(Succeeded.class, s -> {
            var u = s.usage();
            assertThat(u.inputTokens() + u.cacheReadTokens() + u.cacheWriteTokens()).isEqualTo(estimate);
            assertThat(u.outputTokens()).isEqualTo(20);
        });
    }

    @ParameterizedTest
    @CsvSource({"converse", "native", "messages"})
    void aRepeatedCachedPrefixIsWrittenThenRead(String model) {
        String system = "You are a careful analyst. ".repeat(40) + model;
        Succeeded first = (Succeeded) call(model, body(model, system, "first question"));
        Succeeded second = (Succeeded) call(model, body(model, system, "second question"));

        assertThat(first.usage().cacheWriteTokens()).isPositive();
        assertThat(first.usage().cacheReadTokens()).isZero();
        assertThat(second.usage().cacheReadTokens()).isEqualTo(first.usage().cacheWriteTokens());
        assertThat(second.usage().cacheWriteTokens()).isZero();
    }

    @ParameterizedTest
    @CsvSource({"chat", "responses"})
    void theOpenAiApisCacheALongRepeatedPrefixOnTheirOwn(String model) {
        String system = "Context line for the analysis. ".repeat(200) + model;
        Succeeded first = (Succeeded) call(model, body(model, system, "first"));
        Succeeded second = (Succeeded) call(model, body(model, system, "second"));

        assertThat(first.usage().cacheReadTokens()).isZero();
        assertThat(second.usage().cacheReadTokens()).isGreaterThanOrEqualTo(1_024);
        assertThat(second.usage().inputTokens()).isLessThan(first.usage().inputTokens());
    }

    @Test
    void converseCallsAToolWhenAskedAndAnswersItsResult() throws Exception {
        String tools = "\"toolConfig\":{\"tools\":[{\"toolSpec\":{\"name\":\"get_weather\",\"inputSchema\":{\"json\":"
                + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}}}]}";
        String ask = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"Weather in Paris? #sim:use-tool\"}]}],"
                + tools + ",\"inferenceConfig\":{\"maxTokens\":200}}";

        Succeeded use = (Succeeded) call("converse", ask);

        assertThat(use.stopReason()).isEqualTo("tool_use");
        JsonNode toolUse = JSON.readTree(use.responseJson()).at("/output/message/content/0/toolUse");
        assertThat(toolUse.path("name").asText()).isEqualTo("get_weather");
        assertThat(toolUse.path("input").path("city").asText()).isEqualTo("sim");

        String followUp = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"Weather in Paris? #sim:use-tool\"}]},"
                + "{\"role\":\"assistant\",\"content\":[{\"toolUse\":" + toolUse + "}]},"
                + "{\"role\":\"user\",\"content\":[{\"toolResult\":{\"toolUseId\":\"" + toolUse.path("toolUseId").asText()
                + "\",\"content\":[{\"json\":{\"celsius\":21}}]}}]}]," + tools + ",\"inferenceConfig\":{\"maxTokens\":200}}";
        Succeeded answer = (Succeeded) call("converse", followUp);

        assertThat(answer.stopReason()).isEqualTo("end_turn");
        assertThat(JSON.readTree(answer.responseJson()).at("/output/message/content/0/text").asText()).isNotEmpty();
    }

    @ParameterizedTest
    @CsvSource({"chat,/choices/0/message/tool_calls/0/function/name", "responses,/output/0/name",
            "messages,/content/0/name", "native,/content/0/name"})
    void everyShapeCanCallATool(String model, String namePointer) throws Exception {
        String body = switch (CATALOG.require(model).backend()) {
            case MANTLE_CHAT_COMPLETIONS -> "{\"model\":\"openai.gpt-5.6\",\"max_tokens\":50,\"messages\":[{\"role\":"
                    + "\"user\",\"content\":\"#sim:use-tool\"}],\"tools\":[{\"type\":\"function\",\"function\":"
                    + "{\"name\":\"lookup\",\"parameters\":{\"type\":\"object\"}}}]}";
            case MANTLE_RESPONSES -> "{\"model\":\"openai.gpt-5.6\",\"max_output_tokens\":50,\"input\":\"#sim:use-tool\","
                    + "\"tools\":[{\"type\":\"function\",\"name\":\"lookup\",\"parameters\":{\"type\":\"object\"}}]}";
            default -> "{\"anthropic_version\":\"bedrock-2023-05-31\",\"model\":\"anthropic.claude-sonnet-5\","
                    + "\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"#sim:use-tool\"}],"
                    + "\"tools\":[{\"name\":\"lookup\",\"input_schema\":{\"type\":\"object\"}}]}";
        };
        Succeeded use = (Succeeded) call(model, body);
        assertThat(JSON.readTree(use.responseJson()).at(namePointer).asText()).isEqualTo("lookup");
    }

    @ParameterizedTest
    @CsvSource({"tiny-converse", "tiny-messages", "tiny-chat"})
    void overTheQuotaEachShapeIsThrottled(String model) {
        String body = body(model, "x", "word ".repeat(300)).replace("100", "400");
        BedrockOutcome first = call(model, body);
        BedrockOutcome second = call(model, body);

        assertThat(first).isInstanceOf(Succeeded.class);
        assertThat(second).isInstanceOf(BedrockOutcome.Throttled.class);
        assertThat(simulator.stats(model).orElseThrow().throttles()).isEqualTo(1);
    }

    @Test
    void twoApisOfOneMantleModelShareItsQuota() {
        assertThat(simulator.stats("chat").orElseThrow().modelId())
                .isEqualTo(simulator.stats("responses").orElseThrow().modelId());
    }
}
