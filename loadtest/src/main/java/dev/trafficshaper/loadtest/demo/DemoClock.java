package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.local.LocalClock;

/**
 * The demo's one clock, shared by every simulator's quota meter and the local runtime: a
 * {@link LocalClock} running {@code timeScale} times faster than the wall. The arms read it to time
 * arrivals and latencies, and convert to wall time only to sleep.
 */
final class DemoClock {

    private final LocalClock clock;
    private volatile long originMillis;

    DemoClock(LocalClock clock) {
        this.clock = clock;
        this.originMillis = clock.nowMillis();
    }

    LocalClock local() {
        return clock;
    }

    double scale() {
        return clock.scale();
    }

    /** Starts the run: from now on {@link #elapsedMillis()} counts from zero. */
    void startRun() {
        originMillis = clock.nowMillis();
    }

    /** Demo-clock milliseconds since the run started. */
    long elapsedMillis() {
        return clock.nowMillis() - originMillis;
    }

    /** Wall milliseconds until the demo clock shows {@code elapsedMillis} since the start; 0 if past. */
    long wallMillisUntil(long elapsedMillis) {
        return clock.toWallMillis(Math.max(0, elapsedMillis - elapsedMillis()));
    }
}
