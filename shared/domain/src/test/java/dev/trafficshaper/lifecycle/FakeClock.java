package dev.trafficshaper.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Test time: read it, set it, and "sleep" by jumping to the wake-up time at once. A drainer that
 * asks again and again to sleep until a time already reached is spinning, which a fake clock would
 * otherwise hide; that fails the test, and so does running past {@link #failAfter}.
 */
public final class FakeClock implements DrainClock, LongSupplier {

    /** Runs when a sleep reaches its time, before the sleeper continues. */
    public interface Alarm {
        void ring(FakeClock clock);
    }

    private static final int MAX_IDLE_SLEEPS = 1_000;

    private long now;
    private long failAfter = Long.MAX_VALUE;
    private int idleSleeps;
    private final List<Scheduled> alarms = new ArrayList<>();

    private record Scheduled(long atMillis, Alarm alarm) {
    }

    public FakeClock(long startMillis) {
        this.now = startMillis;
    }

    @Override
    public synchronized long nowMillis() {
        return now;
    }

    @Override
    public long getAsLong() {
        return nowMillis();
    }

    public synchronized void set(long atMillis) {
        now = atMillis;
    }

    public synchronized void advance(long millis) {
        now += millis;
    }

    /** Fails the test once anything sleeps past {@code atMillis}: a drain that should have ended did not. */
    public synchronized void failAfter(long atMillis) {
        failAfter = atMillis;
    }

    /** Runs {@code action} once, when a sleep first reaches {@code atMillis}. */
    public synchronized void at(long atMillis, Alarm action) {
        alarms.add(new Scheduled(atMillis, action));
    }

    @Override
    public void sleepUntil(long atMillis) {
        List<Alarm> due = new ArrayList<>();
        synchronized (this) {
            if (atMillis <= now) {
                if (++idleSleeps > MAX_IDLE_SLEEPS) {
                    throw new AssertionError("the drainer keeps sleeping until " + atMillis + " at " + now
                            + ": it spins instead of waiting");
                }
                return;
            }
            idleSleeps = 0;
            if (atMillis > failAfter) {
                throw new AssertionError("still running at " + atMillis + ", past " + failAfter);
            }
            now = atMillis;
            for (var it = alarms.iterator(); it.hasNext(); ) {
                Scheduled scheduled = it.next();
                if (scheduled.atMillis() <= now) {
                    due.add(scheduled.alarm());
                    it.remove();
                }
            }
        }
        due.forEach(alarm -> alarm.ring(this));
    }
}
