package dev.trafficshaper.simulator.provider;

/**
 * A bucket holding up to {@code ceiling} tokens (quota × burst allowance), refilled at
 * {@code refillPerMinute}. A call is measured by how far it would draw the bucket down from full:
 * within the quota it is accepted, within the burst allowance it may be (see {@link Meter#admits}).
 * Refunds go back into the bucket (never above its ceiling); penalties and overruns may leave it in debt.
 */
final class TokenBucketMeter implements Meter {

    private static final Object HANDLE = new Object();

    private final double quota;
    private final double capacity;
    private final double refillPerMilli;
    private double level;
    private long updatedAt = Long.MIN_VALUE;

    TokenBucketMeter(double quota, double capacity, double refillPerMinute) {
        this.quota = quota;
        this.capacity = capacity;
        this.refillPerMilli = refillPerMinute / 60_000.0;
        this.level = capacity;
    }

    @Override
    public Object tryReserve(long amount, long nowMillis, double roll) {
        refill(nowMillis);
        if (!Meter.admits(capacity - level + amount, quota, capacity, roll)) {
            return null;
        }
        level -= amount;
        return HANDLE;
    }

    @Override
    public void settle(Object handle, long reserved, long actual, long nowMillis) {
        refill(nowMillis);
        level = Math.min(capacity, level + reserved - actual);
    }

    @Override
    public void penalize(long amount, long nowMillis) {
        refill(nowMillis);
        level -= amount;
    }

    private void refill(long nowMillis) {
        if (updatedAt != Long.MIN_VALUE && nowMillis > updatedAt) {
            level = Math.min(capacity, level + (nowMillis - updatedAt) * refillPerMilli);
        }
        updatedAt = Math.max(updatedAt, nowMillis);
    }
}
