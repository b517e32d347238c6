package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsCredentials;

/**
 * The chaos suite's crash run: the local server on DynamoDB (the emulator) as a separate process,
 * a 200-request backlog at about three times the model's minute quota, {@code kill -9} in the
 * middle of the drain, and a restart on the same table. Bedrock is the simulator in this JVM
 * behind {@link ChaosBedrock}, which counts each request's calls (a call it answered counts once);
 * webhooks go to a receiver on 127.0.0.1. Both processes and the simulator keep one time, ten
 * times the wall clock, anchored at the test's start ({@code --time-scale}, {@code --time-anchor}).
 *
 * <p><b>Not yet in the suite</b> (its name does not end in {@code IT}; rename it to run it): its
 * first runs found the lost webhooks that {@code LeftoverWebhooksTest} now covers, and ended every
 * request once with no Bedrock call twice; in its later runs the first server, started as its own
 * process on a clock anchored before its start (so ahead of the wall clock), admitted nothing:
 * every request stayed QUEUED, the model showed no drainer, Bedrock saw no call. The same runtime
 * in process on DynamoDB, scaled 1× and 10× from its start, drains at once; the cause is not found.
 */
class LocalServerCrashRun {

    private static final int REQUESTS = 200;
    private static final double SCALE = 10;
    private static final long MAX_TOKENS = 60;
    /** Each request reserves about 10 input + 60 output tokens: 200 of them are about three minutes' quota. */
    private static final long TPM = 4_700;
    private static final int DEADLINE_SECONDS = 2400;
    private static final String MODELS = """
            {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": %d},
                                      "maxTokens": 2000, "shards": 2, "defaultDeadlineSeconds": 600,
                                      "maxDeadlineSeconds": 3600}}}""".formatted(TPM);
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");

    @TempDir
    Path dir;

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
    @Timeout(400)
    void aServerKilledMidDrainAndRestartedOnItsTableEndsEveryRequestOnceAndDeliversItsWebhooks() throws Exception {
        long anchor = System.currentTimeMillis();
        LocalClock clock = LocalClock.scaledSince(SCALE, anchor);
        ChaosTally tally = ChaosTally.named("local-server-kill-9-mid-drain");
        simulator = BedrockSimulator.builder().catalog(ModelCatalog.parse(MODELS)).clock(clock.asClock())
                .latency(new LatencyModel(200, 0.1, 0)).latencyScale(1 / SCALE).seed(17).build().start();
        bedrock = ChaosBedrock.inFrontOf(simulator.endpoint());
        bedrock.run(tally, ChaosBedrock.Plan.NONE, Duration.ofSeconds(1));
        AtomicInteger webhooks = new AtomicInteger();
        Map<String, Boolean> known = new ConcurrentHashMap<>();
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            JsonNode body = new com.fasterxml.jackson.databind.ObjectMapper().readTree(exchange.getRequestBody()
                    .readAllBytes());
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
        progress("started");
        String callback = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
        String run = Long.toString(System.nanoTime(), 36);
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(4);
        List<java.util.concurrent.Future<?>> submissions = new ArrayList<>();
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
        for (int i = 0; i < submissions.size(); i++) {
            submissions.get(i).get();
            if (i % 25 == 24) {
                progress("submitted " + (i + 1) + ", webhooks " + webhooks.get());
            }
        }
        clients.shutdown();
        progress("submitted " + REQUESTS + ", webhooks " + webhooks.get());
        long killAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (webhooks.get() < REQUESTS * 2 / 5 && System.nanoTime() < killAt && processes.get(0).isAlive()) {
            Thread.sleep(50);
        }
        int deliveredBeforeKill = webhooks.get();
        if (deliveredBeforeKill == 0) {
            System.out.println("calls " + simulator.calls() + ", first: " + first.status(tally.requestIds().get(0), null)
                    .raw().body() + "\nmodels: " + first.get("/v1/models").raw().body());
        }
        processes.get(0).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        tally.fault();
        assertThat(deliveredBeforeKill).as("webhooks before the kill").isBetween(1, REQUESTS - 1);

        progress("killed after " + deliveredBeforeKill + " webhooks");
        Api second = new Api(start(args, "second"));
        progress("restarted");
        List<String> ids = tally.requestIds();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(75);
        Map<String, JsonNode> views = new ConcurrentHashMap<>();
        while (System.nanoTime() < until) {
            List<String> open = ids.stream().filter(id -> !tally.webhookDelivered(id)
                    && (!views.containsKey(id) || !visible(views.get(id)))).toList();
            if (open.isEmpty()) {
                break;
            }
            // Only the last few are read: the receiver reports the rest.
            if (open.size() <= 20) {
                for (String id : open) {
                    Api.Answer status = second.status(id, null);
                    if (status.status() != 202) {
                        views.put(id, status.json());
                    }
                }
            }
            Thread.sleep(1_000);
        }
        progress("waited; webhooks " + webhooks.get());
        for (String id : ids) {
            JsonNode view = second.status(id, null).json();
            tally.deadline(id, millis(view.path("deadlineAt")));
            tally.outcome(id, new ChaosTally.Outcome(view.path("status").asText(null), view.path("reason").asText(null),
                    millis(view.path("finishedAt")), visible(view)));
        }

        progress("read every status");
        ChaosTally.Verdict verdict = tally.verdict();
        if (!verdict.passed()) {
            System.out.println(Files.readString(dir.resolve("second.log")).lines()
                    .filter(line -> !line.startsWith("  ")).limit(60).reduce("", (a, b) -> a + b + "\n"));
        }
        verdict = tally.verify();
        System.out.println("chaos local-server-kill-9-mid-drain: webhooks before the kill " + deliveredBeforeKill
                + ", Bedrock calls " + simulator.calls() + ", throttles " + simulator.throttles());
        assertThat(verdict.passed()).isTrue();
        assertThat(bedrock.unmarkedCalls()).isZero();
    }

    private final long started = System.nanoTime();

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

    /** Starts the server as its own process (the test's class path) and waits for its address. */
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
                    Files.writeString(log, line + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.APPEND);
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
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the " + name + " server did not start:\n"
                    + (Files.exists(log) ? Files.readString(log) : ""), e);
        }
    }
}
