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
    public long earliestFit(long amount, long fromMillis) {
        double needed = capacity - quota + amount;
        if (needed > capacity) {
            return Long.MAX_VALUE;
        }
        long from = Math.max(fromMillis, updatedAt == Long.MIN_VALUE ? fromMillis : updatedAt);
        if (fits(amount, from)) {
            return from;
        }
        long at = updatedAt + (long) Math.ceil((needed - level) / refillPerMilli);
        at = Math.max(at, from);
        while (!fits(amount, at)) {
            at++;
        }
        return at;
    }

    /** Whether {@link #tryReserve} would accept {@code amount} at {@code atMillis} within the quota. */
    private boolean fits(long amount, long atMillis) {
        return capacity - levelAt(atMillis) + amount <= quota;
    }

    private double levelAt(long atMillis) {
        if (updatedAt != Long.MIN_VALUE && atMillis > updatedAt) {
            return Math.min(capacity, level + (atMillis - updatedAt) * refillPerMilli);
        }
        return level;
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
        level = levelAt(nowMillis);
        updatedAt = Math.max(updatedAt, nowMillis);
    }
}
