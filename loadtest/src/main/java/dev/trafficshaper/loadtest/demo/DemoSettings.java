package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import java.time.Duration;

/**
 * What one demo run sends, against what quota, on what clock.
 *
 * <p>The defaults are the seed experiment's burst scaled down in size and played on a faster clock:
 * <ul>
 *   <li><b>Same shape.</b> Each request is the seed's (~18,000 input and 500 output tokens,
 *       {@code maxTokens} 1,000, the seed latency model); the burst arrives within 30 s and is 4.63
 *       minutes of quota, as in the seed. Only the count is cut, from 1,000 to 140, and the quota with
 *       it, from 4M to 560k TPM, so the burst stays 4.63 minutes of quota.
 *   <li><b>Faster clock.</b> A shaper spends a quota only as fast as it regenerates, so the seed's
 *       shaper arm needs about five minutes. Every clock of the run (the quota meters, the pacer and
 *       the rest of the local runtime, the simulated generation time, the SDK's retry backoff, the
 *       arrival times) runs {@code timeScale} times faster than the wall, 4× by default: a quota
 *       minute lasts 15 s and the whole run about 80 s. Times reported are on that clock.
 * </ul>
 * Bedrock's meter is the one calibrated to the published seed results ({@link BuiltInScenarios#SEED_CALIBRATION}).
 *
 * @param requests          requests in the burst
 * @param quotaTpm          the model's tokens-per-minute quota, at each arm's simulator and in the shaper
 * @param quotaModel        how the simulators meter the quota
 * @param leniency          the simulators' burst allowance and throttle charge
 * @param seed              seeds prompt lengths, arrival times, simulated latency and retry jitter
 * @param meanInputTokens   mean input tokens per request (normal, {@code inputStddevTokens})
 * @param inputStddevTokens standard deviation of input tokens
 * @param outputTokens      output tokens each call generates
 * @param maxTokens         the output allowance each request asks for (Bedrock reserves it)
 * @param arrivalWindow     the requests arrive at uniform random times within this window (demo clock)
 * @param latency           the simulated generation time (demo clock)
 * @param latencyScale      multiplies the simulated generation time (1 = as modelled)
 * @param timeScale         how many times faster than the wall the demo clock runs
 * @param pollInterval      the longest wait between two status polls of the shaper arm's client (wall clock)
 * @param runTimeout        the run is abandoned, and reported as failed, after this long (wall clock)
 */
public record DemoSettings(
        int requests,
        long quotaTpm,
        QuotaModel quotaModel,
        Leniency leniency,
        long seed,
        long meanInputTokens,
        long inputStddevTokens,
        long outputTokens,
        long maxTokens,
        Duration arrivalWindow,
        LatencyModel latency,
        double latencyScale,
        double timeScale,
        Duration pollInterval,
        Duration runTimeout) {

    /** The published seed experiment, for the header and {@code result.json}. */
    public static final int SEED_REQUESTS = 1_000;
    public static final long SEED_TOKENS_PER_REQUEST = 18_500;
    public static final long SEED_QUOTA_TPM = 4_000_000;
    public static final Duration SEED_ARRIVAL_WINDOW = Duration.ofSeconds(30);

    public static final int DEFAULT_REQUESTS = 140;
    public static final double DEFAULT_TIME_SCALE = 4.0;
    /** The seed scenario's latency model: 400 ms to first token, 6 ms per output token, ±25%. */
    public static final LatencyModel SEED_LATENCY = new LatencyModel(400, 6, 0.25);

    public DemoSettings {
        if (requests < 1 || requests > 10_000) {
            throw new IllegalArgumentException("requests must be in [1, 10000], was " + requests);
        }
        if (quotaTpm < 1_000) {
            throw new IllegalArgumentException("the quota must be at least 1,000 TPM, was " + quotaTpm);
        }
        if (quotaModel == null || leniency == null || latency == null || arrivalWindow == null
                || pollInterval == null || runTimeout == null) {
            throw new IllegalArgumentException("quota model, leniency, latency, arrival window, poll interval and"
                    + " run timeout are required");
        }
        if (meanInputTokens < 20 || inputStddevTokens < 0 || outputTokens < 1 || maxTokens < outputTokens) {
            throw new IllegalArgumentException("need input >= 20 tokens, output >= 1 and maxTokens >= output");
        }
        if (arrivalWindow.isNegative() || pollInterval.isNegative() || pollInterval.isZero()
                || runTimeout.isNegative() || runTimeout.isZero()) {
            throw new IllegalArgumentException("arrival window, poll interval and run timeout must be positive");
        }
        if (!(latencyScale >= 0) || Double.isInfinite(latencyScale)) {
            throw new IllegalArgumentException("latencyScale must be a finite number >= 0, was " + latencyScale);
        }
        if (!(timeScale >= 1) || timeScale > 60) {
            throw new IllegalArgumentException("timeScale must be in [1, 60], was " + timeScale);
        }
    }

    /** The demo's defaults: see the class comment. */
    public static Builder builder() {
        return new Builder();
    }

    /** Mean tokens per request, input and output. */
    public long tokensPerRequest() {
        return meanInputTokens + outputTokens;
    }

    /** The whole burst in minutes of quota (the seed burst is 4.63). */
    public double burstMinutesOfQuota() {
        return (double) requests * tokensPerRequest() / quotaTpm;
    }

    /** The seed burst in minutes of quota: 1,000 × 18.5k at 4M TPM. */
    public static double seedBurstMinutesOfQuota() {
        return (double) SEED_REQUESTS * SEED_TOKENS_PER_REQUEST / SEED_QUOTA_TPM;
    }

    /** The quota of which {@code requests} × {@code tokensPerRequest} are as many minutes as the seed burst's. */
    public static long seedRatioQuota(int requests, long tokensPerRequest) {
        return Math.max(1_000, Math.round(requests * tokensPerRequest / seedBurstMinutesOfQuota()));
    }

    public static final class Builder {
        private int requests = DEFAULT_REQUESTS;
        private Long quotaTpm;
        private QuotaModel quotaModel = QuotaModel.TOKEN_BUCKET;
        private Leniency leniency = BuiltInScenarios.SEED_CALIBRATION;
        private long seed = 42;
        private long meanInputTokens = 18_000;
        private long inputStddevTokens = 600;
        private long outputTokens = 500;
        private long maxTokens = 1_000;
        private Duration arrivalWindow = SEED_ARRIVAL_WINDOW;
        private LatencyModel latency = SEED_LATENCY;
        private double latencyScale = 1.0;
        private double timeScale = DEFAULT_TIME_SCALE;
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration runTimeout = Duration.ofMinutes(15);

        private Builder() {
        }

        public Builder requests(int value) { this.requests = value; return this; }
        /** Default: the quota that keeps the seed's ratio of burst to quota, {@link #seedRatioQuota}. */
        public Builder quotaTpm(long value) { this.quotaTpm = value; return this; }
        public Builder quotaModel(QuotaModel value) { this.quotaModel = value; return this; }
        public Builder leniency(Leniency value) { this.leniency = value; return this; }
        public Builder seed(long value) { this.seed = value; return this; }

        public Builder inputTokens(long mean, long stddev) {
            this.meanInputTokens = mean;
            this.inputStddevTokens = stddev;
            return this;
        }

        public Builder outputTokens(long value) { this.outputTokens = value; return this; }
        public Builder maxTokens(long value) { this.maxTokens = value; return this; }
        public Builder arrivalWindow(Duration value) { this.arrivalWindow = value; return this; }
        public Builder latency(LatencyModel value) { this.latency = value; return this; }
        public Builder latencyScale(double value) { this.latencyScale = value; return this; }
        public Builder timeScale(double value) { this.timeScale = value; return this; }
        public Builder pollInterval(Duration value) { this.pollInterval = value; return this; }
        public Builder runTimeout(Duration value) { this.runTimeout = value; return this; }

        public DemoSettings build() {
            long quota = quotaTpm != null ? quotaTpm : seedRatioQuota(requests, meanInputTokens + outputTokens);
            return new DemoSettings(requests, quota, quotaModel, leniency, seed, meanInputTokens, inputStddevTokens,
                    outputTokens, maxTokens, arrivalWindow, latency, latencyScale, timeScale, pollInterval,
                    runTimeout);
        }
    }
}
