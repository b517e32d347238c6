package dev.trafficshaper.simulator.provider;

import java.util.ArrayDeque;

/**
 * The last 60 seconds may hold at most the limit. A refund either corrects the entry of its
 * reservation (strict: it only helps while that entry is in the window) or is booked as a negative
 * entry when the request ends (lenient).
 */
final class SlidingWindowMeter implements Meter {

    private static final long WINDOW = 60_000;

    private static final class Entry {
        final long at;
        long amount;

        Entry(long at, long amount) {
            this.at = at;
            this.amount = amount;
        }
    }

    private final long quota;
    private final long limit;
    private final boolean refundAtSettlement;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long sum;

    SlidingWindowMeter(long quota, long limit, boolean refundAtSettlement) {
        this.quota = quota;
        this.limit = limit;
        this.refundAtSettlement = refundAtSettlement;
    }

    @Override
    public Object tryReserve(long amount, long nowMillis, double roll) {
        expire(nowMillis);
        if (!Meter.admits(sum + amount, quota, limit, roll)) {
            return null;
        }
        return add(amount, nowMillis);
    }

    @Override
    public void settle(Object handle, long reserved, long actual, long nowMillis) {
        expire(nowMillis);
        long delta = actual - reserved;
        Entry entry = (Entry) handle;
        if (refundAtSettlement || entry.at <= nowMillis - WINDOW) {
            if (refundAtSettlement || delta > 0) {
                add(delta, nowMillis);
            }
        } else {
            entry.amount += delta;
            sum += delta;
        }
    }

    @Override
    public void penalize(long amount, long nowMillis) {
        expire(nowMillis);
        add(amount, nowMillis);
    }

    private Entry add(long amount, long nowMillis) {
        Entry entry = new Entry(nowMillis, amount);
        entries.addLast(entry);
        sum += amount;
        return entry;
    }

    private void expire(long nowMillis) {
        while (!entries.isEmpty() && entries.peekFirst().at <= nowMillis - WINDOW) {
            sum -= entries.pollFirst().amount;
        }
    }
}
