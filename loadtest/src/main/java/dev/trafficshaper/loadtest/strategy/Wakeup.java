package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.EventLoop;

/** At most one pending wake-up of a client's send loop: a later request for one is ignored while it waits. */
final class Wakeup {

    private final EventLoop loop;
    private final Runnable action;
    private boolean pending;

    Wakeup(EventLoop loop, Runnable action) {
        this.loop = loop;
        this.action = action;
    }

    void at(long atMillis) {
        if (pending) {
            return;
        }
        pending = true;
        loop.schedule(atMillis, () -> {
            pending = false;
            action.run();
        });
    }
}
