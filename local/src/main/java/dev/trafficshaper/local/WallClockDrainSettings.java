package dev.trafficshaper.local;

import dev.trafficshaper.lifecycle.DrainSettings;

/**
 * The drainer's settings for a runtime whose clock runs {@code scale} times as fast as the wall
 * clock: its bookkeeping keeps its wall-clock lengths, its pacing runs on the scaled clock.
 *
 * <p>Why: the drainer reads every length in its settings on the runtime's clock, but its
 * bookkeeping waits on I/O, whose latency is wall time. At 10× the 30 s lease lasts 3 wall seconds
 * and the heads are re-read every 100 wall milliseconds. Against a slow store (the moto emulator
 * takes about a second to answer a Query of 75 queue items) a heads read of a 200-request backlog
 * outlasts the lease: the drainer finds its lease gone at the next renewal, stops, a new one takes
 * the lease and loses it the same way, and nothing is ever admitted; meanwhile the re-reads every
 * 100 ms keep the single-threaded emulator busy, so every other call waits too. Multiplying the
 * bookkeeping lengths by the scale gives them back their wall lengths:
 *
 * <pre>
 *   lease, heads refresh, poll, status, depth, dispatch retry  ×  scale
 *   stuck admission, admit look-ahead, counts                     unchanged
 * </pre>
 *
 * The stuck-admission limit bounds a Bedrock call and the look-ahead is a span of pacer slots:
 * both measure the requests' time, which the scaled clock is for. A crashed process's lease still
 * runs out after its wall length (30 s), as on the wall clock.
 */
final class WallClockDrainSettings {

    private WallClockDrainSettings() {
    }

    /** {@code base} with its bookkeeping lengths multiplied by {@code scale} (at least 1). */
    static DrainSettings of(DrainSettings base, double scale) {
        if (!(scale >= 1) || Double.isInfinite(scale)) {
            return base;
        }
        return new DrainSettings(times(base.leaseMillis(), scale), base.headsPerLane(),
                times(base.headsRefreshMillis(), scale), times(base.pollMillis(), scale),
                times(base.statusMillis(), scale), times(base.depthMillis(), scale), base.stuckMillis(),
                base.admitLookaheadMillis(), base.admitBatch(), base.maxHeadsPerLane(), base.dispatchAttempts(),
                times(base.dispatchRetryMillis(), scale), base.dispatchMode(), base.inlineCalls());
    }

    private static long times(long millis, double scale) {
        double scaled = Math.ceil(millis * scale);
        return scaled >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) scaled;
    }
}
