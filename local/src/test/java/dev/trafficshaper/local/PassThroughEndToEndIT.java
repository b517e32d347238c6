package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests the shaper used to refuse after queueing them, end to end through the local server,
 * the production invokers and the Bedrock simulator: a tool-use round trip, a cached prefix whose
 * second request settles with its cache reads released, and every reason to refuse a body at the
 * door answered with 400 and its field, nothing stored.
 */
class PassThroughEndToEndIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": {
              "nova": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 4000000}, "maxTokens": 1000},
              "claude": {"modelId": "anthropic.claude-haiku-v1:0", "backend": "invoke-model",
                         "quotas": {"tpm": 4000000}, "maxTokens": 1000},
              "sonnet": {"modelId": "anthropic.claude-sonnet-5", "backend": "mantle-messages",
                         "quotas": {"inputTpm": 4000000, "outputTpm": 400000}, "maxTokens": 1000},
              "gpt": {"modelId": "openai.gpt-5.6", "backend": "mantle-chat-completions",
                      "quotas": {"inputTpm": 4000000, "outputTpm": 400000}, "maxTokens": 1000}
            }}""");
    private static final String TOOLS = "\"toolConfig\":{\"tools\":[{\"toolSpec\":{\"name\":\"get_weather\","
            + "\"description\":\"Current weather\",\"inputSchema\":{\"json\":{\"type\":\"object\",\"properties\":"
            + "{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}}}]}";

    private static BedrockSimulator bedrock;
    private static LocalRuntime runtime;
    private static LocalServer server;
    private static Api api;

    @BeforeAll
    static void start() {
        bedrock = BedrockSimulator.builder().catalog(CATALOG).latencyScale(0.01).defaultOutputTokens(30).build()
                .start();
        runtime = LocalRuntime.builder().catalog(CATALOG).bedrockEndpoint(bedrock.endpoint()).build();
        server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        api = new Api(server.baseUri());
    }

    @AfterAll
    static void stop() {
        server.close();
        runtime.close();
        bedrock.close();
    }

    private static JsonNode submitAndAwait(String body) {
        Api.Answer submitted = api.submit(body);
        assertThat(submitted.status()).as(submitted.raw().body()).isEqualTo(202);
        String id = submitted.json().path("requestId").asText();
        JsonNode[] done = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            Api.Answer answer = api.status(id, null);
            if (answer.status() == 202) {
                return false;
            }
            done[0] = answer.json();
            return true;
        });
        assertThat(done[0].path("status").asText()).as(done[0].toString()).isEqualTo("SUCCEEDED");
        return done[0];
    }

    @Test
    void aToolUseRoundTripGoesThroughTheShaperUnchanged() {
        String question = "{\"role\":\"user\",\"content\":[{\"text\":\"What is the weather in Paris? #sim:use-tool\"}]}";
        JsonNode first = submitAndAwait("{\"model\":\"nova\",\"converse\":{\"messages\":[" + question + "]," + TOOLS
                + ",\"inferenceConfig\":{\"maxTokens\":300}}}");

        assertThat(first.at("/response/stopReason").asText()).isEqualTo("tool_use");
        JsonNode toolUse = first.at("/response/output/message/content/0/toolUse");
        assertThat(toolUse.path("name").asText()).isEqualTo("get_weather");
        assertThat(toolUse.path("input").path("city").asText()).isEqualTo("sim");

        String result = "{\"role\":\"user\",\"content\":[{\"toolResult\":{\"toolUseId\":\""
                + toolUse.path("toolUseId").asText() + "\",\"content\":[{\"json\":{\"celsius\":21,\"sky\":\"clear\"}}]}}]}";
        JsonNode answer = submitAndAwait("{\"model\":\"nova\",\"converse\":{\"messages\":[" + question
                + ",{\"role\":\"assistant\",\"content\":[{\"toolUse\":" + toolUse + "}]}," + result + "]," + TOOLS
                + ",\"inferenceConfig\":{\"maxTokens\":300}}}");

        assertThat(answer.at("/response/stopReason").asText()).isEqualTo("end_turn");
        assertThat(answer.at("/response/output/message/content/0/text").asText()).isNotEmpty();
        assertThat(answer.at("/usage/inputTokens").asLong()).as("the tool result is read as input")
                .isGreaterThan(first.at("/usage/inputTokens").asLong());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            nova   | converse    | {"system":[{"text":"SYSTEM"},{"cachePoint":{"type":"default"}}],"messages":[{"role":"user","content":[{"text":"QUESTION"}]}],"inferenceConfig":{"maxTokens":200}}
            claude | invokeModel | {"anthropic_version":"bedrock-2023-05-31","max_tokens":200,"system":[{"type":"text","text":"SYSTEM","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"QUESTION"}]}
            sonnet | messages    | {"max_tokens":200,"system":[{"type":"text","text":"SYSTEM","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"QUESTION"}]}
            """)
    void aRepeatedCachedPrefixSettlesWithItsCacheReadsReleased(String model, String key, String template) {
        String system = ("You are the reviewer for " + model + ". Check every claim against the contract. ").repeat(30);
        String first = "{\"model\":\"" + model + "\",\"" + key + "\":"
                + template.replace("SYSTEM", system).replace("QUESTION", "First clause?") + "}";
        String second = first.replace("First clause?", "Second clause?");

        JsonNode written = submitAndAwait(first);
        JsonNode read = submitAndAwait(second);

        long prefix = written.at("/usage/cacheWriteTokens").asLong();
        assertThat(prefix).isPositive();
        assertThat(read.at("/usage/cacheReadTokens").asLong()).isEqualTo(prefix);
        RequestRecord record = runtime.status().status(read.path("requestId").asText(), "local",
                runtime.nowMillis()).orElseThrow().record();
        var quota = CATALOG.require(model).quota();
        Charge reserved = Charge.reservation(quota, record.estimate());
        TokenUsage used = record.actualUsage();
        Charge settled = Charge.settlement(quota, used);
        assertThat(reserved.inputTokens()).as("the estimate reserved the cached prefix too")
                .isGreaterThanOrEqualTo(used.inputTokens() + used.cacheReadTokens() + used.cacheWriteTokens());
        assertThat(settled.inputTokens()).as("the cache reads are released at settlement")
                .isEqualTo(used.inputTokens() + used.cacheWriteTokens())
                .isLessThanOrEqualTo(reserved.inputTokens() - prefix);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"model":"nova","messages":{"max_tokens":5,"messages":[{"role":"user","content":"x"}]}}                               | messages
            {"model":"nova","converse":{"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"maxTokens":5},"toolconfig":{}}} | converse.toolconfig
            {"model":"nova","converse":{"messages":[{"role":"user","content":[{"text":"x"}]}]}}                                   | converse.inferenceConfig.maxTokens
            {"model":"claude","invokeModel":{"anthropic_version":"bedrock-2023-05-31","messages":[{"role":"user","content":"x"}]}} | invokeModel.max_tokens
            {"model":"gpt","chatCompletions":{"messages":[{"role":"user","content":"x"}],"max_tokens":5,"service_tier":"flex"}}   | chatCompletions.service_tier
            {"model":"claude","serviceTier":"priority","invokeModel":{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[{"role":"user","content":"x"}]}} | serviceTier
            {"model":"nova","converse":{"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"maxTokens":5},"serviceTier":{"type":"flex"}}} | converse.serviceTier.type
            {"model":"sonnet","messages":{"max_tokens":5,"stream":true,"messages":[{"role":"user","content":"x"}]}}               | messages.stream
            """)
    void whatCannotRunIsRefusedAtTheDoorAndNothingIsStored(String body, String field) {
        String withId = "{\"requestId\":\"refused-" + Math.abs(field.hashCode()) + "\"," + body.substring(1);
        long callsBefore = bedrock.calls();

        Api.Answer answer = api.submit(withId);

        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(400);
        assertThat(answer.json().path("field").asText()).isEqualTo(field);
        assertThat(answer.json().path("error").asText()).isNotBlank();
        assertThat(api.status("refused-" + Math.abs(field.hashCode()), null).status()).isEqualTo(404);
        for (String model : java.util.List.of("nova", "claude", "sonnet", "gpt")) {
            assertThat(runtime.queueDepth(model)).isZero();
        }
        assertThat(bedrock.calls()).isEqualTo(callsBefore);
    }
}
