package dev.trafficshaper.simulator.provider;

/**
 * Clock-minute windows: everything charged during one minute counts against that minute's limit.
 * A refund is credited to the current minute when the reservation was made in it, or always when
 * refunds are booked at settlement.
 */
final class FixedWindowMeter implements Meter {

    private final long quota;
    private final long limit;
    private final boolean refundAtSettlement;
    private long minute = Long.MIN_VALUE;
    private long used;

    FixedWindowMeter(long quota, long limit, boolean refundAtSettlement) {
        this.quota = quota;
        this.limit = limit;
        this.refundAtSettlement = refundAtSettlement;
    }

    @Override
    public Object tryReserve(long amount, long nowMillis, double roll) {
        roll(nowMillis);
        if (!Meter.admits(used + amount, quota, limit, roll)) {
            return null;
        }
        used += amount;
        return minute;
    }

    @Override
    public long earliestFit(long amount, long fromMillis) {
        if (amount > quota) {
            return Long.MAX_VALUE;
        }
        long current = Math.floorDiv(fromMillis, 60_000L);
        long usedThen = current == minute ? used : 0;
        return usedThen + amount <= quota ? fromMillis : (current + 1) * 60_000L;
    }

    @Override
    public void settle(Object handle, long reserved, long actual, long nowMillis) {
        roll(nowMillis);
        if (refundAtSettlement || (Long) handle == minute || actual > reserved) {
            used += actual - reserved;
        }
    }

    @Override
    public void penalize(long amount, long nowMillis) {
        roll(nowMillis);
        used += amount;
    }

    private void roll(long nowMillis) {
        long current = Math.floorDiv(nowMillis, 60_000L);
        if (current != minute) {
            minute = current;
            used = 0;
        }
    }
}
