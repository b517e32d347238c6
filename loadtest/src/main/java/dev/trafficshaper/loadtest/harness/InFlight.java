package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.local.LocalClock;

/** Counts a driver's requests still waiting for their answer, and lets a worker wait for none. */
final class InFlight {

    private final LocalClock clock;
    private int count;

    InFlight(LocalClock clock) {
        this.clock = clock;
    }

    synchronized void started() {
        count++;
    }

    synchronized void finished() {
        if (--count == 0) {
            notifyAll();
        }
    }

    synchronized int count() {
        return count;
    }

    synchronized int awaitNone(long stopAtMillis) throws InterruptedException {
        while (count > 0) {
            long left = stopAtMillis - clock.nowMillis();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, Math.min(1_000, clock.toWallMillis(left))));
        }
        return count;
    }
}
