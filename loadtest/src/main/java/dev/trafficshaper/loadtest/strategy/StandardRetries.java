package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import java.util.SplittableRandom;

/**
 * The AWS SDK for Java v2 standard retry policy: 3 attempts; throttles back off with half jitter from
 * a 1 s base, other transient errors with full jitter from 100 ms; both capped at 20 s.
 */
final class StandardRetries {

    static final int MAX_ATTEMPTS = 3;

    private StandardRetries() {
    }

    static boolean retryable(CallOutcome outcome, int attempt) {
        return outcome != CallOutcome.SUCCEEDED && attempt < MAX_ATTEMPTS;
    }

    static long delayMillis(CallOutcome outcome, int attempt, SplittableRandom random) {
        if (outcome == CallOutcome.THROTTLED) {
            long ceiling = Math.min(20_000, 1_000L << (attempt - 1));
            return ceiling / 2 + (long) (random.nextDouble() * (ceiling / 2.0));
        }
        long ceiling = Math.min(20_000, 100L << (attempt - 1));
        return (long) (random.nextDouble() * ceiling);
    }
}
