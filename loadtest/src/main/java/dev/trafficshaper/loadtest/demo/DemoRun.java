package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.local.LocalClock;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.bedrock.ModelStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Runs the demo: the same burst through each arm at once, over real HTTP. Every arm has its own
 * Bedrock simulator with the same quota, so the arms cannot take quota from each other and running
 * them side by side measures each as if it ran alone (they share only the machine's CPUs).
 *
 * <p>One {@link DemoClock} times everything: the simulators' quota meters and the local runtime read
 * it, the simulated generation time and the retry backoff are scaled to it, and arrivals and
 * latencies are measured on it. The run starts after every simulator, client and the local shaper
 * are up and warmed, so start-up costs are not charged to any arm.
 */
public final class DemoRun {

    public static final String MODEL_KEY = "nova-lite";
    public static final String MODEL_ID = "amazon.nova-lite-v1:0";
    static final long BUCKET_MILLIS = 10_000;
    private static final String SLF4J_VERBOSITY = "slf4j.internal.verbosity";
    private static final long SAMPLE_WALL_MILLIS = 200;
    private static final long PROGRESS_WALL_MILLIS = 5_000;

    private DemoRun() {
    }

    /** The one model every simulator serves and the shaper fronts: Nova Lite at the demo's quota. */
    public static ModelCatalog catalog(DemoSettings settings) {
        Quota quota = Quota.tokensPerMinute(settings.quotaTpm());
        return ModelCatalog.of(List.of(ModelConfig.of(MODEL_KEY, MODEL_ID, quota)));
    }

    /**
     * Sends the burst through {@code arms} and waits for every outcome (or the run timeout).
     * {@code progress} gets a line every few seconds.
     */
    public static DemoResult run(DemoSettings settings, List<Arm> arms, Consumer<String> progress)
            throws InterruptedException {
        quietenSdkLoggingNotice();
        Burst burst = Burst.generate(settings);
        ModelCatalog catalog = catalog(settings);
        DemoClock clock = new DemoClock(LocalClock.scaled(settings.timeScale()));
        List<Lane> lanes = new ArrayList<>();
        try {
            for (Arm arm : arms) {
                lanes.add(Lane.open(arm, settings, catalog, burst.size(), clock));
            }
            for (Lane lane : lanes) {
                lane.warmUp();
            }
            long wallStart = System.nanoTime();
            clock.startRun();
            for (Lane lane : lanes) {
                lane.start(burst, clock);
            }
            boolean timedOut = false;
            long nextProgress = PROGRESS_WALL_MILLIS;
            while (true) {
                long now = clock.elapsedMillis();
                lanes.forEach(lane -> lane.sample(now));
                if (lanes.stream().allMatch(lane -> lane.tally.isComplete())) {
                    break;
                }
                long wall = (System.nanoTime() - wallStart) / 1_000_000;
                if (wall >= settings.runTimeout().toMillis()) {
                    timedOut = true;
                    break;
                }
                if (wall >= nextProgress) {
                    progress.accept(progressLine(now, lanes));
                    nextProgress += PROGRESS_WALL_MILLIS;
                }
                Thread.sleep(SAMPLE_WALL_MILLIS);
            }
            long end = clock.elapsedMillis();
            double wallSeconds = (System.nanoTime() - wallStart) / 1e9;
            lanes.forEach(lane -> lane.sample(end));
            progress.accept(progressLine(end, lanes));
            List<ArmResult> results = new ArrayList<>();
            for (Lane lane : lanes) {
                results.add(lane.result(end));
            }
            return new DemoResult(settings, results, end / 1_000.0, wallSeconds, timedOut);
        } finally {
            for (int i = lanes.size() - 1; i >= 0; i--) {
                lanes.get(i).close();
            }
        }
    }

    /**
     * The AWS SDK logs through SLF4J, which this jar carries without a provider, so SLF4J warns on
     * stderr, the first time a logger is made, that it logs nothing. The demo needs no SDK logs; keep
     * SLF4J's own reports to errors unless the user asked for more.
     */
    private static void quietenSdkLoggingNotice() {
        if (System.getProperty(SLF4J_VERBOSITY) == null) {
            System.setProperty(SLF4J_VERBOSITY, "ERROR");
        }
    }

    static String progressLine(long millis, List<Lane> lanes) {
        StringBuilder done = new StringBuilder();
        StringBuilder throttles = new StringBuilder();
        for (Lane lane : lanes) {
            String separator = done.length() == 0 ? "" : ", ";
            done.append(separator).append(lane.arm.label()).append(' ').append(lane.tally.done()).append('/')
                    .append(lane.tally.expected());
            throttles.append(separator).append(lane.simulator.throttles());
        }
        return String.format(Locale.ROOT, "  %4d s  done: %s · 429s: %s", millis / 1_000, done, throttles);
    }

    /** One arm with its own simulator, its client side, and what it measured. */
    private static final class Lane implements AutoCloseable {
        final Arm arm;
        final BedrockSimulator simulator;
        final ArmTally tally;
        final DeliveryTimeline timeline = new DeliveryTimeline();
        private final int burndown;
        private DirectArm direct;
        private LocalShaper localShaper;
        private ShaperArm shaper;

        private Lane(Arm arm, BedrockSimulator simulator, int requests, int burndown) {
            this.arm = arm;
            this.simulator = simulator;
            this.tally = new ArmTally(requests);
            this.burndown = burndown;
        }

        static Lane open(Arm arm, DemoSettings settings, ModelCatalog catalog, int requests, DemoClock clock) {
            BedrockSimulator simulator = BedrockSimulator.builder()
                    .catalog(catalog)
                    .quotaModel(settings.quotaModel())
                    .leniency(settings.leniency())
                    .clock(clock.local().asClock())
                    .latency(settings.latency())
                    .latencyScale(settings.latencyScale() / clock.scale())
                    .defaultOutputTokens(settings.outputTokens())
                    .seed(settings.seed())
                    .threads(Math.max(64, Math.min(1_024, requests + 16)))
                    .build()
                    .start();
            Lane lane = new Lane(arm, simulator, requests, catalog.require(MODEL_KEY).quota().outputBurndown());
            try {
                switch (arm) {
                    case DIRECT_NO_RETRY -> lane.direct = DirectArm.withoutRetries(simulator.endpoint(), MODEL_ID,
                            settings.maxTokens());
                    case DIRECT_RETRY_JITTER -> lane.direct = DirectArm.withRetryAndJitter(simulator.endpoint(),
                            MODEL_ID, settings.maxTokens(), clock.scale());
                    case SHAPER -> {
                        lane.localShaper = LocalShaper.start(catalog, simulator.endpoint(), clock.local());
                        lane.shaper = new ShaperArm(lane.localShaper.baseUri(), MODEL_KEY, settings.maxTokens(),
                                settings.pollInterval(), settings.runTimeout());
                    }
                }
            } catch (RuntimeException e) {
                lane.close();
                throw e;
            }
            return lane;
        }

        void warmUp() {
            if (direct != null) {
                direct.warmUp();
            } else {
                shaper.warmUp();
            }
        }

        void start(Burst burst, DemoClock clock) {
            if (direct != null) {
                direct.start(burst, tally, clock);
            } else {
                shaper.start(burst, tally, clock);
            }
        }

        void sample(long atMillis) {
            timeline.record(atMillis, delivered(stats()));
        }

        ArmResult result(long endMillis) {
            ModelStats stats = stats();
            long[] buckets = timeline.perBucket(BUCKET_MILLIS, Math.max(tally.lastFinishMillis(), 1));
            int done = tally.done();
            return new ArmResult(arm, tally.expected(), tally.succeeded(), tally.expected() - tally.succeeded(),
                    stats.throttles(), stats.calls(), tally.percentile(0.50), tally.percentile(0.99),
                    delivered(stats), (done == tally.expected() ? tally.lastFinishMillis() : endMillis) / 1_000.0,
                    buckets, tally.firstError());
        }

        private ModelStats stats() {
            return simulator.stats(MODEL_KEY).orElseThrow();
        }

        private long delivered(ModelStats stats) {
            return stats.inputTokens() + stats.outputTokens() * burndown;
        }

        @Override
        public void close() {
            if (shaper != null) {
                shaper.close();
            }
            if (localShaper != null) {
                localShaper.close();
            }
            if (direct != null) {
                direct.close();
            }
            simulator.close();
        }
    }
}
