package dev.trafficshaper.functions;

import dev.trafficshaper.lifecycle.DrainClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The services' time in a chaos run: the wall clock plus an offset the test moves forward, so a
 * lease runs out or an admission turns stale at once instead of after half a minute. Sleepers
 * wake in steps of at most 20 ms, so a jump ends their wait.
 */
final class ChaosClock implements DrainClock {

    private final AtomicLong offsetMillis = new AtomicLong();

    @Override
    public long nowMillis() {
        return System.currentTimeMillis() + offsetMillis.get();
    }

    @Override
    public void sleepUntil(long atMillis) throws InterruptedException {
        long wait;
        while ((wait = atMillis - nowMillis()) > 0) {
            Thread.sleep(Math.min(wait, 20));
        }
    }

    void advance(Duration by) {
        offsetMillis.addAndGet(by.toMillis());
    }

    long offsetMillis() {
        return offsetMillis.get();
    }
}
