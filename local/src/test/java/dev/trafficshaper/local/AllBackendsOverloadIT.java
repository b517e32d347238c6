package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.RawJson;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.bedrock.ModelStats;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every request shape under four times its quota through the shaper at once: Converse, an
 * InvokeModel Anthropic body, and the three bedrock-mantle APIs (whose input TPM is checked with
 * input + max_tokens), each model's burst four minutes of its binding quota. Every request must
 * succeed, with no throttle at the simulator and exactly one model call each.
 *
 * <p>Time runs {@value #TIME_SCALE} times faster than the wall for the runtime, the pacers and the
 * simulator's meters alike, as in {@link LocalRuntimeEndToEndIT}.
 */
class AllBackendsOverloadIT {

    static final double TIME_SCALE = 12;
    private static final int PER_MODEL = 60;
    private static final int MINUTES_OF_WORK = 4;
    private static final long MAX_TOKENS = 200;
    private static final String PROMPT = "Summarise the quarterly report in three short bullet points.";

    /** Model key → backend, model id and the body under its key. */
    private static final Map<String, String[]> SHAPES = new LinkedHashMap<>();

    static {
        SHAPES.put("converse", new String[] {"converse", "amazon.nova-lite-v1:0", "converse",
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"" + PROMPT + "\"}]}],"
                        + "\"inferenceConfig\":{\"maxTokens\":" + MAX_TOKENS + "}}"});
        SHAPES.put("invoke", new String[] {"invoke-model", "anthropic.claude-haiku-v1:0", "invokeModel",
                "{\"anthropic_version\":\"bedrock-2023-05-31\",\"max_tokens\":" + MAX_TOKENS
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + PROMPT + "\"}]}"});
        SHAPES.put("chat", new String[] {"mantle-chat-completions", "openai.gpt-5.6", "chatCompletions",
                "{\"max_completion_tokens\":" + MAX_TOKENS + ",\"messages\":[{\"role\":\"user\",\"content\":\""
                        + PROMPT + "\"}]}"});
        SHAPES.put("responses", new String[] {"mantle-responses", "openai.gpt-oss-120b", "responses",
                "{\"max_output_tokens\":" + MAX_TOKENS + ",\"input\":\"" + PROMPT + "\"}"});
        SHAPES.put("messages", new String[] {"mantle-messages", "anthropic.claude-sonnet-5", "messages",
                "{\"max_tokens\":" + MAX_TOKENS + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + PROMPT + "\"}]}"});
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(QuotaModel.class)
    void everyShapeDrainsFourMinutesOfQuotaWithoutAThrottleAndOneCallEach(QuotaModel metering) throws Exception {
        LocalClock clock = LocalClock.scaled(TIME_SCALE);
        ModelCatalog catalog = catalog();
        ExecutorService callers = Executors.newFixedThreadPool(32);
        try (BedrockSimulator bedrock = BedrockSimulator.builder().catalog(catalog).quotaModel(metering)
                .clock(clock.asClock()).latencyScale(1 / TIME_SCALE).seed(11).build().start();
             LocalRuntime runtime = LocalRuntime.builder().catalog(catalog).bedrockEndpoint(bedrock.endpoint())
                     .clock(clock).build();
             LocalServer server = LocalServer.start(runtime,
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Api api = new Api(server.baseUri());
            warmUp(callers, api);
            List<Future<Api.Answer>> submitted = new ArrayList<>();
            for (int i = 0; i < PER_MODEL; i++) {
                for (Map.Entry<String, String[]> shape : SHAPES.entrySet()) {
                    String body = "{\"model\":\"" + shape.getKey() + "\",\"deadlineSeconds\":3600,\""
                            + shape.getValue()[2] + "\":" + shape.getValue()[3] + "}";
                    submitted.add(callers.submit(() -> api.submit(body)));
                }
            }
            Map<String, String> modelOf = new HashMap<>();
            for (Future<Api.Answer> answer : submitted) {
                Api.Answer a = answer.get();
                assertThat(a.status()).as(a.raw().body()).isEqualTo(202);
                modelOf.put(a.json().path("requestId").asText(), "");
            }
            Map<String, String> states = new HashMap<>();
            long wallLimit = 60_000 + clock.toWallMillis(3 * MINUTES_OF_WORK * 60_000L);
            await().atMost(Duration.ofMillis(wallLimit)).pollInterval(Duration.ofMillis(500)).until(() -> {
                for (String id : modelOf.keySet()) {
                    if (!states.containsKey(id)) {
                        Api.Answer status = api.status(id, null);
                        if (status.status() != 202) {
                            JsonNode json = status.json();
                            states.put(id, json.path("status").asText() + " " + json.path("httpStatus").asInt());
                        }
                    }
                }
                return states.size() == modelOf.size();
            });

            for (String model : SHAPES.keySet()) {
                ModelStats stats = bedrock.stats(model).orElseThrow();
                System.out.printf("overload [%s, %s]: %d requests, %d calls, %d successes, %d throttles%n",
                        metering.wireName(), model, PER_MODEL, stats.calls(), stats.successes(), stats.throttles());
            }
            for (String model : SHAPES.keySet()) {
                ModelStats stats = bedrock.stats(model).orElseThrow();
                assertThat(stats.throttles()).as(metering + " " + model + " throttles").isZero();
                assertThat(stats.calls()).as(model + " calls").isEqualTo(PER_MODEL);
                assertThat(stats.successes()).as(model + " successes").isEqualTo(PER_MODEL);
            }
            assertThat(states.values()).as("every request succeeded").containsOnly("SUCCEEDED 200")
                    .hasSize(PER_MODEL * SHAPES.size());
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * Runs the HTTP path and the parsers of every shape before the burst (refused bodies and model
     * listings, which call no model): at this time scale a cold JIT's pauses are seconds of quota.
     */
    private static void warmUp(ExecutorService callers, Api api) throws Exception {
        List<Future<Api.Answer>> answers = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            for (Map.Entry<String, String[]> shape : SHAPES.entrySet()) {
                String refused = "{\"model\":\"" + shape.getKey() + "\",\"" + shape.getValue()[2] + "\":"
                        + shape.getValue()[3].replace(":" + MAX_TOKENS, ":-1") + "}";
                answers.add(callers.submit(() -> api.submit(refused)));
            }
            answers.add(callers.submit(() -> api.get("/v1/models")));
        }
        for (Future<Api.Answer> answer : answers) {
            assertThat(answer.get().status()).isIn(200, 400);
        }
    }

    /**
     * Each model's quota is a quarter of its burst's reservations on the dimension that binds. The
     * strict bound (headroom off): what this run holds every shape to is no throttle and one call
     * each, which headroom's probes (its bank's first of all, at the burst's start under a window
     * meter) trade for speed within 1% extra calls.
     */
    private static ModelCatalog catalog() {
        StringBuilder models = new StringBuilder("{\"models\":{");
        for (Map.Entry<String, String[]> shape : SHAPES.entrySet()) {
            String backend = shape.getValue()[0];
            String modelId = shape.getValue()[1];
            ModelConfig probe = ModelCatalog.parse("{\"models\":{\"p\":{\"modelId\":\"" + modelId + "\",\"backend\":\""
                    + backend + "\",\"quotas\":" + (backend.startsWith("mantle") ? "{\"inputTpm\":1,\"outputTpm\":1}"
                    : "{\"tpm\":1}") + "}}}").require("p");
            byte[] body = shape.getValue()[3].getBytes(StandardCharsets.UTF_8);
            long input = CharacterTokenEstimator.defaults().inputTokens(probe, Payload.json(body));
            long perRequest = input + MAX_TOKENS; // runtime TPM, and mantle input TPM (input + max_tokens)
            String quotas = backend.startsWith("mantle")
                    ? "{\"inputTpm\":" + PER_MODEL * perRequest / MINUTES_OF_WORK + ",\"outputTpm\":"
                            + PER_MODEL * MAX_TOKENS / MINUTES_OF_WORK + "}"
                    : "{\"tpm\":" + PER_MODEL * perRequest / MINUTES_OF_WORK + "}";
            models.append(models.length() > 11 ? "," : "").append(RawJson.quote(shape.getKey())).append(":{\"modelId\":\"")
                    .append(modelId).append("\",\"backend\":\"").append(backend).append("\",\"quotas\":").append(quotas)
                    .append(",\"maxTokens\":1000,\"maxDeadlineSeconds\":3600,\"headroom\":false}");
        }
        return ModelCatalog.parse(models.append("}}").toString());
    }

}
