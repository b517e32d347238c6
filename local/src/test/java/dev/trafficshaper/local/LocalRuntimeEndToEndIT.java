package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.delivery.WebhookSignature;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.bedrock.ModelStats;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Acceptance: a burst of 300 requests, four times a model's per-minute quota, arrives at once
 * through the HTTP API; the shaper drains it through the Bedrock simulator (which enforces the
 * same quota, metered each of the three ways) with at most 1% extra calls (headroom's and the
 * bank's throttled probes, each sent again once), one delivery per outcome, and waits that match
 * what the quota allows.
 *
 * <p><b>Time.</b> Draining four minutes of quota takes four minutes. To keep the test short, the
 * runtime, the pacer and the simulator's quota meters share one {@link LocalClock} running
 * {@value #DEFAULT_TIME_SCALE} times faster than the wall clock, and the simulator's latencies
 * are scaled to match, so every component sees the same (shorter) minutes. Quotas, waits and
 * drain times below are in that clock. Run with {@code -Dshaper.e2e.timeScale=1} to play the
 * same run in real time (about four and a half minutes per quota model).
 */
class LocalRuntimeEndToEndIT {

    static final double DEFAULT_TIME_SCALE = 12;
    private static final int REQUESTS = 300;
    private static final int QUOTA_MINUTES_OF_WORK = 4;
    private static final long MAX_TOKENS = 200;
    private static final String PROMPT = "Summarise the quarterly report in three short bullet points.";
    private static final byte[] SECRET = "end-to-end-secret".getBytes(StandardCharsets.UTF_8);
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "{0}")
    @EnumSource(QuotaModel.class)
    void burstOfFourMinutesOfQuotaDrainsWithoutThrottlesAndEachOutcomeDeliveredOnce(QuotaModel metering)
            throws Exception {
        double timeScale = Double.parseDouble(System.getProperty("shaper.e2e.timeScale",
                Double.toString(DEFAULT_TIME_SCALE)));
        LocalClock clock = LocalClock.scaled(timeScale);
        String converse = "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"" + PROMPT + "\"}]}],"
                + "\"inferenceConfig\":{\"maxTokens\":" + MAX_TOKENS + "}}";
        // Each request reserves its estimated input plus maxTokens (burndown 1); the quota is a
        // quarter of the burst's reservations, so the burst is four minutes of quota.
        ModelConfig probe = ModelConfig.of("paced", "test.paced-v1:0", Quota.tokensPerMinute(1));
        long reservation = CharacterTokenEstimator.defaults().inputTokens(probe, Payload.json(converse)) + MAX_TOKENS;
        long tpm = REQUESTS * reservation / QUOTA_MINUTES_OF_WORK;
        double target = 0.95;
        ModelCatalog catalog = ModelCatalog.parse("{\"models\":{\"paced\":{\"modelId\":\"test.paced-v1:0\","
                + "\"quotas\":{\"tpm\":" + tpm + "},\"maxTokens\":1000,\"targetUtilization\":" + target + "}}}");
        // The strict bound drains the reservations at the target in this time; headroom may beat it
        // (the bank spends a minute of quota at once, forgiveness spends the refunds of calls that
        // used less than maxTokens), but not the meter, which charges what the calls used
        long drainAllowedMillis = Math.round(REQUESTS * reservation / (target * tpm) * 60_000);

        Map<String, AtomicInteger> listened = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> webhooks = new ConcurrentHashMap<>();
        List<String> webhookProblems = Collections.synchronizedList(new ArrayList<>());
        ExecutorService receiverThreads = Executors.newFixedThreadPool(8);
        HttpServer receiver = webhookReceiver(receiverThreads, webhooks, webhookProblems);
        String callbackUrl = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";

        try (BedrockSimulator bedrock = BedrockSimulator.builder().catalog(catalog).quotaModel(metering)
                .clock(clock.asClock()).latencyScale(1 / timeScale).seed(7).build().start();
             LocalRuntime runtime = LocalRuntime.builder().catalog(catalog).bedrockEndpoint(bedrock.endpoint())
                     .clock(clock).webhookSecret(SECRET)
                     .listener((record, delivery) -> listened.computeIfAbsent(record.requestId(),
                             id -> new AtomicInteger()).incrementAndGet())
                     .build();
             LocalServer server = LocalServer.start(runtime,
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Api api = new Api(server.baseUri());
            String body = "{\"model\":\"paced\",\"callbackUrl\":\"" + callbackUrl + "\",\"converse\":" + converse + "}";

            ExecutorService callers = Executors.newFixedThreadPool(32);
            warmUp(callers, api, body);
            long startedWall = System.nanoTime();
            List<String> ids = submitAll(callers, api, body);
            long submittedWall = System.nanoTime();
            callers.shutdown();
            Map<String, JsonNode> outcomes = pollUntilAllTerminal(api, ids,
                    60_000 + 3 * clock.toWallMillis(drainAllowedMillis));
            long finishedWall = System.nanoTime();
            awaitDeliveries(listened, webhooks, ids);
            // a duplicate delivery, if any, would arrive within this time: none may
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> noneAbove(1, listened) && noneAbove(1, webhooks));

            List<Long> waits = new ArrayList<>();
            Map<String, Long> states = new HashMap<>();
            long firstSubmitted = Long.MAX_VALUE;
            long lastAdmitted = Long.MIN_VALUE;
            for (JsonNode outcome : outcomes.values()) {
                states.merge(outcome.path("status").asText() + " " + outcome.path("httpStatus").asInt(), 1L,
                        Long::sum);
                waits.add(outcome.path("waitMillis").asLong());
                firstSubmitted = Math.min(firstSubmitted, millis(outcome, "submittedAt"));
                lastAdmitted = Math.max(lastAdmitted, millis(outcome, "admittedAt"));
            }
            long drainTookMillis = lastAdmitted - firstSubmitted;
            waits.sort(null);
            long p50 = percentile(waits, 50);
            long p99 = percentile(waits, 99);
            ModelStats stats = bedrock.stats("paced").orElseThrow();
            long fastestMillis = fastestTheMeterAllows(stats, tpm);
            System.out.printf("end-to-end [%s] time scale %.0fx: %d requests, tpm %d, reservation %d tokens each;"
                            + " submitted in %.2f s wall, all terminal after %.1f s wall; in quota-clock seconds:"
                            + " drain the strict bound allows %.1f s, the meter at the fastest %.1f s,"
                            + " last admission %.1f s after the first submission,"
                            + " wait p50 %.1f s, p99 %.1f s, max %.1f s; model calls %d, throttles %d, successes %d%n",
                    metering.wireName(), timeScale, REQUESTS, tpm, reservation,
                    (submittedWall - startedWall) / 1e9, (finishedWall - startedWall) / 1e9,
                    drainAllowedMillis / 1000.0, fastestMillis / 1000.0, drainTookMillis / 1000.0,
                    p50 / 1000.0, p99 / 1000.0,
                    waits.get(waits.size() - 1) / 1000.0, stats.calls(), stats.throttles(), stats.successes());

            assertThat(ids).doesNotHaveDuplicates().hasSize(REQUESTS);
            assertThat(states).containsExactly(Map.entry("SUCCEEDED 200", (long) REQUESTS));
            // headroom's and the bank's probes may be throttled, within 1% extra calls; a throttled call did nothing
            // and goes back to the queue once
            assertThat(bedrock.throttles()).as("throttles at the simulator").isLessThanOrEqualTo(REQUESTS / 100);
            assertThat(bedrock.calls()).as("model calls").isEqualTo(REQUESTS + bedrock.throttles());
            assertThat(stats.successes()).isEqualTo(REQUESTS);
            assertThat(outcomes.values().stream().mapToLong(outcome -> outcome.path("requeues").asInt()).sum())
                    .as("requeues").isEqualTo(bedrock.throttles());
            assertThat(listened.keySet()).containsExactlyInAnyOrderElementsOf(ids);
            assertThat(listened.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
            assertThat(webhookProblems).isEmpty();
            assertThat(webhooks.keySet()).containsExactlyInAnyOrderElementsOf(ids);
            assertThat(webhooks.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
            assertThat((double) p99).as("p99 wait vs the drain time the strict bound allows (%d ms) and the"
                    + " fastest the meter allows (%d ms)", drainAllowedMillis, fastestMillis)
                    .isBetween(0.9 * fastestMillis, 1.1 * drainAllowedMillis);
            assertThat((double) drainTookMillis).as("first submission to last admission vs the drain time the"
                    + " strict bound allows (%d ms) and the fastest the meter allows (%d ms)", drainAllowedMillis,
                    fastestMillis).isBetween((double) fastestMillis, 1.1 * drainAllowedMillis);
        } finally {
            receiver.stop(0);
            receiverThreads.shutdownNow();
        }
    }

    /**
     * The soonest any caller could have sent the last request, from what the meter charged for the
     * calls it served (their actual input and output): the quota each minute, plus at most two
     * minutes' quota at once at the start (a full bucket, or a fixed window's minute that turns
     * just after the burst arrived).
     */
    private static long fastestTheMeterAllows(ModelStats stats, long tpm) {
        double quotaMinutes = (double) (stats.inputTokens() + stats.outputTokens()) / tpm;
        return Math.round(Math.max(0.0, quotaMinutes - 2) * 60_000);
    }

    /**
     * Warms the callers and the server up with requests that store nothing (refused submissions
     * and reads), so that the burst arrives within about a second, not at the pace of a cold JVM.
     */
    private static void warmUp(ExecutorService callers, Api api, String body) throws Exception {
        String refused = body.replace("\"maxTokens\":", "\"maxTokens\":-");
        List<Future<Api.Answer>> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            answers.add(callers.submit(() -> api.submit(refused)));
            answers.add(callers.submit(() -> api.get("/v1/models")));
        }
        for (Future<Api.Answer> answer : answers) {
            assertThat(answer.get().status()).isIn(200, 400);
        }
    }

    /** Submits every request at once from several threads, as a burst would arrive. */
    private static List<String> submitAll(ExecutorService callers, Api api, String body) throws Exception {
        List<Future<Api.Answer>> answers = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            answers.add(callers.submit(() -> api.submit(body)));
        }
        List<String> ids = new ArrayList<>();
        for (Future<Api.Answer> answer : answers) {
            Api.Answer submitted = answer.get();
            assertThat(submitted.status()).as(submitted.raw().body()).isEqualTo(202);
            ids.add(submitted.json().path("requestId").asText());
        }
        return ids;
    }

    /** Polls each unfinished request over HTTP, as a caller would, until every one has ended. */
    private static Map<String, JsonNode> pollUntilAllTerminal(Api api, List<String> ids, long timeoutWallMillis) {
        Map<String, JsonNode> done = new HashMap<>();
        boolean[] sawRetryAfter = {false};
        await().atMost(Duration.ofMillis(timeoutWallMillis)).pollInterval(Duration.ofMillis(250))
                .alias("all " + ids.size() + " requests ended in time").until(() -> {
                    for (String id : ids) {
                        if (done.containsKey(id)) {
                            continue;
                        }
                        Api.Answer answer = api.status(id, null);
                        if (answer.status() == 202) {
                            sawRetryAfter[0] |= answer.header("Retry-After") != null;
                        } else {
                            done.put(id, answer.json());
                        }
                    }
                    return done.size() == ids.size();
                });
        assertThat(sawRetryAfter[0]).as("pending requests answered with Retry-After").isTrue();
        return done;
    }

    private static void awaitDeliveries(Map<String, AtomicInteger> listened, Map<String, AtomicInteger> webhooks,
                                        List<String> ids) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> listened.size() >= ids.size() && webhooks.size() >= ids.size());
    }

    private static boolean noneAbove(int limit, Map<String, AtomicInteger> counts) {
        return counts.values().stream().allMatch(count -> count.get() <= limit);
    }

    /** Counts webhook POSTs per request and checks each one's signature. */
    private static HttpServer webhookReceiver(ExecutorService threads, Map<String, AtomicInteger> counts,
                                              List<String> problems) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
        server.createContext("/hook", exchange -> {
            try (exchange) {
                receive(exchange, counts, problems);
            }
        });
        server.setExecutor(threads);
        server.start();
        return server;
    }

    private static void receive(HttpExchange exchange, Map<String, AtomicInteger> counts, List<String> problems)
            throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String timestamp = exchange.getRequestHeaders().getFirst(WebhookSignature.TIMESTAMP_HEADER);
        String signature = exchange.getRequestHeaders().getFirst(WebhookSignature.SIGNATURE_HEADER);
        JsonNode json = JSON.readTree(body);
        String requestId = json.path("requestId").asText();
        if (timestamp == null || signature == null
                || !signature.equals(WebhookSignature.sign(SECRET, Long.parseLong(timestamp), body))) {
            problems.add(requestId + ": bad signature " + signature);
        }
        if (!requestId.equals(exchange.getRequestHeaders().getFirst("X-Shaper-Request-Id"))) {
            problems.add(requestId + ": request id header differs from the body");
        }
        if (!json.path("status").asText().equals("SUCCEEDED") || !json.has("response")) {
            problems.add(requestId + ": webhook body is not the finished request: " + body);
        }
        counts.computeIfAbsent(requestId, id -> new AtomicInteger()).incrementAndGet();
        exchange.sendResponseHeaders(204, -1);
    }

    private static long millis(JsonNode outcome, String field) {
        return Instant.parse(outcome.path(field).asText()).toEpochMilli();
    }

    /** Nearest-rank percentile of sorted values. */
    private static long percentile(List<Long> sorted, int percent) {
        int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
