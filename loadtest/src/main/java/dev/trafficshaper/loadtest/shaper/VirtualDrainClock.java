package dev.trafficshaper.loadtest.shaper;

import dev.trafficshaper.lifecycle.DrainClock;
import dev.trafficshaper.loadtest.sim.EventLoop;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The production drainer's clock on the simulation's event loop. The drainer is a blocking loop
 * that sleeps until its next slot; here a sleep runs the simulation up to that time (a nested run
 * of the {@link EventLoop}), so while the drainer waits, requests arrive, Bedrock answers and
 * processors write their outcomes, exactly in time order.
 *
 * <p>Only the lease holder ever sleeps (a drainer that finds the lease taken returns at once), so
 * at most one drainer is inside a sleep at any time. That is also where a crash strikes: the first
 * sleep that reaches a crash time runs the simulation to that time and throws {@link DrainerCrash}
 * out of the drainer, which leaves its lease behind as a dead process would.
 *
 * <p>Production code keeps epoch millis; simulated time starts at {@link #EPOCH_MILLIS}.
 */
final class VirtualDrainClock implements DrainClock {

    /**
     * Simulated time 0 as epoch millis: a whole second, as TTL attributes need, and a whole minute,
     * so the provider's clock minutes (simulated time ÷ 60 s) are the drainer's (epoch ÷ 60 s).
     */
    static final long EPOCH_MILLIS = 1_699_999_980_000L;

    private final EventLoop loop;
    private final Deque<Long> crashes;

    VirtualDrainClock(EventLoop loop, List<Long> crashAtMillis) {
        this.loop = loop;
        this.crashes = new ArrayDeque<>(crashAtMillis.stream().sorted().toList());
    }

    @Override
    public long nowMillis() {
        return EPOCH_MILLIS + loop.now();
    }

    long simulated(long epochMillis) {
        return epochMillis - EPOCH_MILLIS;
    }

    @Override
    public void sleepUntil(long atMillis) {
        long at = simulated(atMillis);
        if (!crashes.isEmpty() && crashes.peekFirst() <= at) {
            long crashAt = crashes.pollFirst();
            loop.runUntil(crashAt);
            throw new DrainerCrash(loop.now());
        }
        loop.runUntil(at);
    }

    /** The drainer's process died at {@code atMillis} (simulated time). */
    static final class DrainerCrash extends RuntimeException {
        DrainerCrash(long atMillis) {
            super("drainer crashed at " + atMillis + " ms", null, false, false);
        }
    }
}
