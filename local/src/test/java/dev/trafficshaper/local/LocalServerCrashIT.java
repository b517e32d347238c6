package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.chaos.ChaosBedrock;
import dev.trafficshaper.testing.chaos.ChaosTally;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsCredentials;

/**
 * The chaos suite's crash run of the local server: the server on DynamoDB (the emulator the suite
 * starts) as a separate process, a 200-request backlog at about three times the model's minute
 * quota, {@code kill -9} in the middle of the drain — once some requests have ended and at least
 * one Bedrock call is in flight — and a restart on the same table. Bedrock is the simulator in this
 * JVM behind {@link ChaosBedrock}, which counts each request's calls; webhooks go to a receiver on
 * 127.0.0.1. Both processes and the simulator keep one time, ten times the wall clock, anchored at
 * the test's start ({@code --time-scale}, {@code --time-anchor}).
 *
 * <p>Then {@link ChaosTally} checks every request: one terminal state, no Bedrock call after one
 * that may have run, the terminal state within deadline + 2 minutes on the run's clock, the webhook
 * delivered or its failure visible in {@code GET}. What ends what after the restart: the new
 * process's drainer takes the lease once the dead one's has run out (30 s of wall time) and drains
 * the queue; the sweeper sends again what was admitted and not yet called, and fails as
 * {@code MODEL_TIMEOUT} each call that was in flight at the kill (it may have run) 30 s after its
 * deadline; the start-up pass queues again the webhooks the dead process held in memory.
 *
 * <p>The deadlines (20 minutes on the 10× clock, 2 wall minutes) are what the emulator's pace needs:
 * it serves one call at a time, and a request costs about a dozen calls, so on a loaded 2-core
 * machine the backlog drains at about 2–3 requests per wall second, slower than the quota allows.
 */
class LocalServerCrashIT {

    private static final String SCENARIO = "local-server-killed";
    private static final int REQUESTS = 200;
    private static final double SCALE = 10;
    private static final long MAX_TOKENS = 60;
    /** Each request reserves about 10 input + 60 output tokens: 200 of them are about three minutes' quota. */
    private static final long TPM = 4_700;
    private static final int DEADLINE_SECONDS = 1_200;
    /** Webhooks received before the kill: some requests have ended, most have not. */
    private static final int ENDED_BEFORE_KILL = 50;
    /** Calls take about 3 s on the run's clock (0.3 s of wall time), so some are in flight at the kill. */
    private static final LatencyModel LATENCY = new LatencyModel(3_000, 0.2, 0);
    private static final String MODELS = """
            {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": %d},
                                      "maxTokens": 2000, "shards": 2, "defaultDeadlineSeconds": 600,
                                      "maxDeadlineSeconds": 3600}}}""".formatted(TPM);
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final long started = System.nanoTime();
    private final List<Process> processes = new ArrayList<>();
    private BedrockSimulator simulator;
    private ChaosBedrock bedrock;
    private HttpServer receiver;

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
        if (receiver != null) {
            receiver.stop(0);
        }
        if (bedrock != null) {
            bedrock.close();
        }
        if (simulator != null) {
            simulator.stop();
        }
    }

    @Test
    @Timeout(420)
    void aServerKilledMidDrainAndRestartedOnItsTableEndsEveryRequestOnceAndOnTimeAndDeliversItsWebhooks()
            throws Exception {
        long anchor = System.currentTimeMillis();
        LocalClock clock = LocalClock.scaledSince(SCALE, anchor);
        ChaosTally tally = ChaosTally.named(SCENARIO);
        simulator = BedrockSimulator.builder().catalog(ModelCatalog.parse(MODELS)).clock(clock.asClock())
                .latency(LATENCY).latencyScale(1 / SCALE).seed(17).build().start();
        bedrock = ChaosBedrock.inFrontOf(simulator.endpoint());
        bedrock.run(tally, ChaosBedrock.Plan.NONE, Duration.ofSeconds(1));
        AtomicInteger webhooks = new AtomicInteger();
        Map<String, Boolean> known = new ConcurrentHashMap<>();
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            String id = body.path("requestId").asText();
            if (known.containsKey(id)) {
                tally.webhook(id, body.path("status").asText());
                webhooks.incrementAndGet();
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        Path models = Files.writeString(dir.resolve("models.json"), MODELS);
        String table = "crash-" + System.nanoTime();
        List<String> args = List.of("--port", "0", "--models", models.toString(), "--bedrock-endpoint",
                bedrock.endpoint().toString(), "--dynamodb-table", table, "--payload-bucket",
                "crash-payloads-" + System.nanoTime(), "--time-scale", Double.toString(SCALE), "--time-anchor",
                Long.toString(anchor));

        Api first = new Api(start(args, "first"));
        progress("first server started");
        String callback = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
        String run = Long.toString(System.nanoTime(), 36);
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<?>> submissions = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            String id = "crash-" + run + "-" + i;
            known.put(id, true);
            submissions.add(clients.submit(() -> {
                Api.Answer accepted = first.submit(Api.body("nova-lite", "\"requestId\":\"" + id
                        + "\",\"deadlineSeconds\":" + DEADLINE_SECONDS + ",\"callbackUrl\":\"" + callback + "\",",
                        "Say hello " + ChaosBedrock.marker(id), MAX_TOKENS));
                assertThat(accepted.status()).as(accepted.raw().body()).isEqualTo(202);
                tally.submitted(id, clock.nowMillis() + DEADLINE_SECONDS * 1000L);
                return null;
            }));
        }
        for (Future<?> submission : submissions) {
            submission.get();
        }
        clients.shutdown();
        progress("submitted " + REQUESTS + ", webhooks so far " + webhooks.get());

        long killBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!(webhooks.get() >= ENDED_BEFORE_KILL && bedrock.inFlight() > 0) && System.nanoTime() < killBy
                && processes.get(0).isAlive()) {
            Thread.sleep(5);
        }
        int endedBeforeKill = webhooks.get();
        int inFlightAtKill = bedrock.inFlight();
        processes.get(0).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        tally.fault();
        progress("killed with " + endedBeforeKill + " webhooks received and " + inFlightAtKill + " calls in flight");
        assertThat(endedBeforeKill).as("webhooks before the kill (the first server drains)")
                .isBetween(1, REQUESTS - 1);
        assertThat(inFlightAtKill).as("Bedrock calls in flight at the kill").isPositive();

        Api second = new Api(start(args, "second"));
        progress("second server started on the same table");
        List<String> ids = tally.requestIds();
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
        Map<String, JsonNode> ended = new ConcurrentHashMap<>();
        while (System.nanoTime() < waitUntil) {
            List<String> open = ids.stream().filter(id -> !tally.webhookDelivered(id)
                    && (!ended.containsKey(id) || !visible(ended.get(id)))).toList();
            if (open.isEmpty()) {
                break;
            }
            // Only the last few are read: the receiver reports the rest.
            if (open.size() <= 20) {
                for (String id : open) {
                    Api.Answer status = second.status(id, null);
                    if (status.status() != 202) {
                        ended.put(id, status.json());
                    }
                }
            }
            Thread.sleep(1_000);
        }
        progress("waited; webhooks " + webhooks.get());

        Map<String, Integer> outcomes = new TreeMap<>();
        for (String id : ids) {
            JsonNode view = second.status(id, null).json();
            tally.deadline(id, millis(view.path("deadlineAt")));
            tally.outcome(id, new ChaosTally.Outcome(view.path("status").asText(null), view.path("reason").asText(null),
                    millis(view.path("finishedAt")), visible(view)));
            String outcome = view.path("status").asText("?") + (view.hasNonNull("reason")
                    ? " " + view.path("reason").asText() : "");
            outcomes.merge(outcome, 1, Integer::sum);
        }
        ChaosTally.Verdict verdict = tally.verdict();
        if (!verdict.passed()) {
            System.out.println(Files.readString(dir.resolve("second.log")).lines()
                    .filter(line -> !line.startsWith("  ")).limit(60).reduce("", (a, b) -> a + b + "\n"));
        }
        System.out.println("chaos " + SCENARIO + ": webhooks before the kill " + endedBeforeKill
                + ", calls in flight at the kill " + inFlightAtKill + ", Bedrock calls " + simulator.calls()
                + ", throttles " + simulator.throttles() + ", outcomes " + outcomes + ", wall time "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s");
        tally.verify();
        assertThat(bedrock.unmarkedCalls()).isZero();
    }

    private void progress(String what) {
        System.out.println("crash run, " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms: " + what);
    }

    private static boolean visible(JsonNode view) {
        JsonNode delivery = view.path("delivery");
        return delivery.path("deadLettered").asBoolean(false) || delivery.hasNonNull("lastError")
                || (delivery.path("attempts").asInt(0) > 0 && !delivery.path("delivered").asBoolean(false));
    }

    private static long millis(JsonNode iso) {
        return iso.isTextual() ? Instant.parse(iso.asText()).toEpochMilli() : iso.asLong(0);
    }

    /**
     * Starts the server as its own process (this JVM's class path) and waits for its address; its
     * output is read to the end into a log, so the process never blocks on a full pipe.
     */
    private URI start(List<String> args, String name) throws IOException, InterruptedException {
        AwsEmulator aws = AwsEmulator.shared();
        AwsCredentials credentials = aws.credentials().resolveCredentials();
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), LocalMain.class.getName()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("AWS_ENDPOINT_URL", aws.endpoint().toString());
        builder.environment().put("AWS_REGION", aws.region().id());
        builder.environment().put("AWS_ACCESS_KEY_ID", credentials.accessKeyId());
        builder.environment().put("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey());
        Process process = builder.start();
        processes.add(process);
        CompletableFuture<URI> address = new CompletableFuture<>();
        Path log = dir.resolve(name + ".log");
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                    Matcher listening = LISTENING.matcher(line);
                    if (listening.find()) {
                        address.complete(URI.create(listening.group(1)));
                    }
                }
            } catch (IOException e) {
                address.completeExceptionally(e);
            }
            address.completeExceptionally(new IllegalStateException("the server ended before listening"));
        }, "local-server-" + name);
        reader.setDaemon(true);
        reader.start();
        try {
            return address.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the " + name + " server did not start:\n"
                    + (Files.exists(log) ? Files.readString(log) : ""), e);
        }
    }
}
