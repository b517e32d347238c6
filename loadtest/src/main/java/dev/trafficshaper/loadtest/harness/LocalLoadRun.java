package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.local.LocalClock;
import dev.trafficshaper.local.LocalRuntime;
import dev.trafficshaper.local.LocalServer;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.bedrock.ModelStats;
import dev.trafficshaper.threads.DaemonThreads;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;

/**
 * {@code run --local}: starts everything a run needs on loopback — a Bedrock simulator per arm
 * with the scenario's quota, meter, leniency, latency and faults (so the arms cannot take quota
 * from each other), and for the shaper arm the local runtime behind its HTTP server and a webhook
 * receiver — then plays the schedule with the same {@link SliceWorker}s the Lambda workers run,
 * in threads, and waits until every request of every arm has a terminal outcome or the drain time
 * is up. One {@link LocalClock}, {@code timeScale} times faster than the wall, times it all.
 *
 * <p>Files go to the run directory as {@link RunLayout} describes; what each simulator counted is
 * written to {@code provider.json} at the end.
 */
public final class LocalLoadRun {

    private static final long PROGRESS_WALL_MILLIS = 5_000;
    private static final long POLL_WALL_MILLIS = 200;
    private static final long LOCAL_MAX_DEADLINE_SECONDS = 6 * 3_600;

    /** How the run ended; the report says what it measured. */
    public record Result(RunManifest manifest, boolean complete, double wallSeconds, long webhooksRefused) {
    }

    private LocalLoadRun() {
    }

    public static Result run(LocalRunSettings settings, Consumer<String> progress) throws InterruptedException {
        Scenario scenario = settings.scenario();
        RunSchedule schedule = RunSchedule.of(scenario, settings.seed());
        WorkerSizing sizing = WorkerSizing.of(schedule, scenario, settings.arms(), settings.inFlightPerWorker());
        int workers = settings.workers() != null ? settings.workers() : sizing.workers();
        progress.accept(settings.workers() != null ? workers + " worker" + (workers == 1 ? "" : "s") + " (--workers;"
                + " " + sizing.explain() + ")" : sizing.explain());
        LocalClock clock = LocalClock.scaled(settings.timeScale());
        DirectoryObjectStore store = new DirectoryObjectStore(settings.out());
        String runId = RequestIds.newRunId(Instant.now(), new SplittableRandom(System.nanoTime()));
        ModelCatalog catalog = catalog(settings, scenario, schedule);
        TerminalTally tally = new TerminalTally(settings.arms(), schedule.size());
        Map<ArmKind, BedrockSimulator> simulators = new EnumMap<>(ArmKind.class);
        List<AutoCloseable> open = new ArrayList<>();
        ExecutorService workerThreads = Executors.newFixedThreadPool(workers, DaemonThreads.factory("loadtest-worker"));
        try {
            for (ArmKind arm : settings.arms()) {
                BedrockSimulator simulator = simulator(settings, scenario, catalog, schedule, clock);
                open.add(simulator);
                simulators.put(arm, simulator);
            }
            ShaperEndpoint shaper = null;
            if (settings.arms().contains(ArmKind.SHAPER)) {
                OutcomeSink webhooks = tally.counting(new AppendingFileSink(store.path(RunLayout.outcomes(
                        ArmKind.SHAPER, "webhook"))));
                open.add(webhooks);
                // the shaper calls Bedrock at most as fast as requests arrive: concurrency = rate × call time
                int invokers = (int) Math.max(64, Math.min(1_024,
                        Math.ceil(2 * sizing.peakRatePerSecond() * WorkerSizing.callSeconds(scenario))));
                shaper = ShaperEndpoint.start(catalog, simulators.get(ArmKind.SHAPER), clock, webhooks, invokers);
                open.add(shaper);
            }
            List<List<ArmDriver>> drivers = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                List<ArmDriver> armsOfWorker = new ArrayList<>();
                for (ArmKind arm : settings.arms()) {
                    OutcomeSink sink = tally.counting(new AppendingFileSink(store.path(RunLayout.outcomes(arm,
                            "w" + w))));
                    open.add(sink);
                    ArmDriver driver = arm == ArmKind.SHAPER
                            ? new ShaperApiArm(shaper.client(), settings.modelKey(), shaper.callbackUrl(),
                                    settings.deadlineSeconds(), runId, w, sink, clock)
                            : BedrockArm.create(arm, bedrockClient(simulators.get(arm)), settings.modelId(), runId, w,
                                    sink, clock);
                    open.add(driver);
                    armsOfWorker.add(driver);
                }
                drivers.add(armsOfWorker);
            }
            for (List<ArmDriver> armsOfWorker : drivers) {
                for (ArmDriver driver : armsOfWorker) {
                    driver.warmUp();
                }
            }
            long start = clock.nowMillis() + Math.round(500 * clock.scale());
            long drainMillis = Math.round(settings.drainMinutes() * 60_000);
            long stopAt = start + schedule.lastArrivalMillis() + drainMillis;
            RunManifest manifest = RunManifest.of(runId, RunManifest.LOCAL, scenario, settings.seed(), settings.arms(),
                    settings.modelKey(), settings.modelId(), settings.timeScale(), start, workers, null, stopAt,
                    settings.deadlineSeconds(), schedule.size());
            manifest.write(store);
            long wallStart = System.nanoTime();
            List<Future<SliceWorker.Result>> results = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int worker = w;
                List<ScheduledRequest> slice = schedule.slice(worker, workers);
                List<ArmDriver> armsOfWorker = drivers.get(worker);
                results.add(workerThreads.submit(() -> SliceWorker.play(worker, slice, armsOfWorker, clock, start,
                        stopAt)));
            }
            long nextProgress = PROGRESS_WALL_MILLIS;
            while (clock.nowMillis() < stopAt && !tally.awaitComplete(POLL_WALL_MILLIS)) {
                long wall = (System.nanoTime() - wallStart) / 1_000_000;
                if (wall >= nextProgress) {
                    progress.accept(progressLine(clock.nowMillis() - start, settings.arms(), tally, simulators));
                    nextProgress += PROGRESS_WALL_MILLIS;
                }
            }
            progress.accept(progressLine(clock.nowMillis() - start, settings.arms(), tally, simulators));
            double wallSeconds = (System.nanoTime() - wallStart) / 1e9;
            boolean complete = tally.complete();
            workerThreads.shutdownNow();
            for (Future<SliceWorker.Result> result : results) {
                if (result.isDone() && !result.isCancelled()) {
                    try {
                        SliceWorker.Result r = result.get();
                        if (r.maxLagMillis() > 1_000 * clock.scale()) {
                            progress.accept(String.format(Locale.ROOT, "  worker %d sent up to %.1f s late: the"
                                    + " machine could not keep to the schedule", r.worker(), r.maxLagMillis() / 1e3));
                        }
                    } catch (java.util.concurrent.ExecutionException e) {
                        progress.accept("  worker failed: " + e.getCause());
                    }
                }
            }
            writeProviderStats(store, simulators);
            long refused = shaper == null ? 0 : shaper.webhooksRefused();
            return new Result(manifest, complete, wallSeconds, refused);
        } finally {
            workerThreads.shutdownNow();
            for (int i = open.size() - 1; i >= 0; i--) {
                try {
                    open.get(i).close();
                } catch (Exception e) {
                    progress.accept("  closing " + open.get(i).getClass().getSimpleName() + ": " + e);
                }
            }
        }
    }

    /**
     * The one model of the run, as the shaper fronts it and every simulator serves it: the
     * scenario's quota and shaper settings, limits wide enough for its requests, and deadlines
     * long enough that the queue, not the deadline, decides (unless {@code --deadline-seconds}).
     */
    static ModelCatalog catalog(LocalRunSettings settings, Scenario scenario, RunSchedule schedule) {
        long maxInput = 1;
        for (ScheduledRequest request : schedule.requests()) {
            maxInput = Math.max(maxInput, request.inputTokens());
        }
        long deadline = settings.deadlineSeconds() != null ? settings.deadlineSeconds() : LOCAL_MAX_DEADLINE_SECONDS;
        ModelConfig model = new ModelConfig(settings.modelKey(), settings.modelId(), Backend.CONVERSE,
                scenario.quota(), Math.max(10_000, scenario.maxTokens()), Math.max(300_000, 2 * maxInput),
                scenario.shaper(), 4, deadline, Math.max(deadline, LOCAL_MAX_DEADLINE_SECONDS), null);
        return ModelCatalog.of(List.of(model));
    }

    private static BedrockSimulator simulator(LocalRunSettings settings, Scenario scenario, ModelCatalog catalog,
                                              RunSchedule schedule, LocalClock clock) {
        long output = Math.round(Math.min(scenario.maxTokens(), scenario.outputTokens().expectedValue()));
        return BedrockSimulator.builder()
                .catalog(catalog)
                .quotaModel(scenario.meter())
                .leniency(scenario.leniency())
                .backgroundShare(scenario.backgroundLoad())
                .latency(scenario.latency())
                .latencyScale(1.0 / clock.scale())
                .faults(scenario.faults())
                .defaultOutputTokens(Math.max(1, output))
                .seed(settings.seed())
                .clock(clock.asClock())
                .threads(Math.max(64, Math.min(1_024, schedule.size() + 16)))
                .build()
                .start();
    }

    private static software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder bedrockClient(
            BedrockSimulator simulator) {
        return BedrockRuntimeClient.builder()
                .endpointOverride(simulator.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("loadtest",
                        "loadtest")));
    }

    private static String progressLine(long millis, List<ArmKind> arms, TerminalTally tally,
                                       Map<ArmKind, BedrockSimulator> simulators) {
        StringBuilder done = new StringBuilder();
        StringBuilder throttles = new StringBuilder();
        for (ArmKind arm : arms) {
            String separator = done.length() == 0 ? "" : ", ";
            done.append(separator).append(arm.wireName()).append(' ').append(tally.terminal(arm)).append('/')
                    .append(tally.expected());
            throttles.append(separator).append(simulators.get(arm).throttles());
        }
        return String.format(Locale.ROOT, "  %5d s  outcomes: %s · 429s at each arm's Bedrock: %s", millis / 1_000,
                done, throttles);
    }

    private static void writeProviderStats(ObjectStore store, Map<ArmKind, BedrockSimulator> simulators) {
        Map<String, ModelStats> stats = new LinkedHashMap<>();
        simulators.forEach((arm, simulator) -> stats.put(arm.wireName(), simulator.totals()));
        store.put(RunLayout.PROVIDER, LoadTestJson.pretty(Map.of("arms", stats)));
    }

    /** The shaper arm's side of a local run: runtime, HTTP server, webhook receiver, client. */
    private static final class ShaperEndpoint implements AutoCloseable {
        private final LocalRuntime runtime;
        private final LocalServer server;
        private final WebhookReceiver receiver;
        private final ShaperClient client;

        private ShaperEndpoint(LocalRuntime runtime, LocalServer server, WebhookReceiver receiver,
                               ShaperClient client) {
            this.runtime = runtime;
            this.server = server;
            this.receiver = receiver;
            this.client = client;
        }

        static ShaperEndpoint start(ModelCatalog catalog, BedrockSimulator bedrock, LocalClock clock,
                                    OutcomeSink webhookSink, int invokers) {
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String secret = HexFormat.of().formatHex(random);
            LocalRuntime runtime = LocalRuntime.builder()
                    .catalog(catalog)
                    .bedrockEndpoint(bedrock.endpoint())
                    .clock(clock)
                    .webhookSecret(secret.getBytes(StandardCharsets.UTF_8))
                    .invokerThreads(invokers)
                    .build();
            LocalServer server = null;
            WebhookReceiver receiver = null;
            try {
                server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
                receiver = WebhookReceiver.start(secret, webhookSink, clock);
                ShaperClient client = ShaperClient.create(server.baseUri());
                return new ShaperEndpoint(runtime, server, receiver, client);
            } catch (RuntimeException e) {
                if (receiver != null) {
                    receiver.close();
                }
                if (server != null) {
                    server.close();
                }
                runtime.close();
                throw e;
            }
        }

        ShaperClient client() {
            return client;
        }

        java.net.URI callbackUrl() {
            return receiver.callbackUrl();
        }

        long webhooksRefused() {
            return receiver.refused();
        }

        @Override
        public void close() {
            client.close();
            server.close();
            runtime.close();
            receiver.close();
        }
    }
}
