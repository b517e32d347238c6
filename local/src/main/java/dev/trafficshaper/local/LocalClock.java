package dev.trafficshaper.local;

import dev.trafficshaper.lifecycle.DrainClock;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The local runtime's time: the wall clock, or a clock that runs a fixed number of times faster.
 *
 * <p>Why a faster clock: quotas are per minute and the pacer spreads work over real minutes, so a
 * burst several times a model's quota takes several minutes to drain. A clock running {@code k}
 * times faster, shared by every part that reads time (the pacer, the drainer, the lifecycle
 * services and the simulator's quota meters), plays the same run in {@code 1/k} of the wall time:
 * every component sees the same minutes, only shorter. It is for demos and tests; anything that
 * reports times to a person (for example {@code Retry-After}) should convert with
 * {@link #toWallMillis(long)}.
 *
 * <pre>
 *   now = origin + (wall elapsed since creation) × scale
 * </pre>
 */
public final class LocalClock implements DrainClock, LongSupplier {

    private static final LocalClock SYSTEM = new LocalClock(1.0);

    private final double scale;
    private final long originMillis;
    private final long originNanos;

    private LocalClock(double scale) {
        this(scale, System.currentTimeMillis(), System.nanoTime());
    }

    private LocalClock(double scale, long originMillis, long originNanos) {
        if (!(scale > 0) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException("time scale must be a finite number > 0, was " + scale);
        }
        this.scale = scale;
        this.originMillis = originMillis;
        this.originNanos = originNanos;
    }

    /** The wall clock. */
    public static LocalClock system() {
        return SYSTEM;
    }

    /** A clock that starts at the wall time now and then runs {@code scale} times as fast. */
    public static LocalClock scaled(double scale) {
        return scale == 1.0 ? SYSTEM : new LocalClock(scale);
    }

    /**
     * A clock that read {@code anchorMillis} at the wall time {@code anchorMillis} and has run
     * {@code scale} times as fast since: every process given the same anchor and scale keeps the
     * same time, so a process restarted on a stored state reads its timestamps as the first did.
     */
    public static LocalClock scaledSince(double scale, long anchorMillis) {
        if (scale == 1.0) {
            return SYSTEM;
        }
        long wall = System.currentTimeMillis();
        long nanos = System.nanoTime();
        if (anchorMillis > wall) {
            throw new IllegalArgumentException("the clock's anchor must not be in the future, was " + anchorMillis);
        }
        long now = anchorMillis + (long) ((wall - anchorMillis) * scale);
        return new LocalClock(scale, now, nanos);
    }

    /** Runtime milliseconds per wall millisecond. */
    public double scale() {
        return scale;
    }

    @Override
    public long nowMillis() {
        if (scale == 1.0) {
            return System.currentTimeMillis();
        }
        return originMillis + (long) ((System.nanoTime() - originNanos) * scale / 1_000_000.0);
    }

    @Override
    public long getAsLong() {
        return nowMillis();
    }

    @Override
    public void sleepUntil(long atMillis) throws InterruptedException {
        long wait = atMillis - nowMillis();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep((long) Math.ceil(wait * 1_000_000.0 / scale));
        }
    }

    /** How long {@code runtimeMillis} of this clock take on the wall clock, rounded up. */
    public long toWallMillis(long runtimeMillis) {
        return (long) Math.ceil(runtimeMillis / scale);
    }

    /** This clock as a {@link Clock}, for components that take one (the Bedrock simulator's meters). */
    public Clock asClock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException("a local clock is always UTC");
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(nowMillis());
            }

            @Override
            public long millis() {
                return nowMillis();
            }
        };
    }
}
