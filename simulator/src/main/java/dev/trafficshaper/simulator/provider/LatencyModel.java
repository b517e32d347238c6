package dev.trafficshaper.simulator.provider;

import java.util.random.RandomGenerator;

/**
 * How long a generation takes: time to first token plus a time per output token, both scaled by a
 * uniform jitter of ± {@code jitter}.
 */
public record LatencyModel(long timeToFirstTokenMillis, double millisPerOutputToken, double jitter) {

    public LatencyModel {
        if (timeToFirstTokenMillis < 0 || millisPerOutputToken < 0 || jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("latency must be non-negative and jitter in [0, 1)");
        }
    }

    public long sample(long outputTokens, RandomGenerator random) {
        double base = timeToFirstTokenMillis + millisPerOutputToken * outputTokens;
        double factor = 1.0 + jitter * (2 * random.nextDouble() - 1);
        return Math.max(1, Math.round(base * factor));
    }
}
