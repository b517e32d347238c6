package dev.trafficshaper.simulator.provider;

import java.util.ArrayDeque;

/**
 * The last 60 seconds (or another window, for the short-horizon limit) may hold at most the limit.
 * A refund either corrects the entry of its reservation (strict: it only helps while that entry is
 * in the window) or is booked as a negative entry when the request ends (lenient).
 */
final class SlidingWindowMeter implements Meter {

    private static final long MINUTE = 60_000;

    private static final class Entry {
        final long at;
        long amount;

        Entry(long at, long amount) {
            this.at = at;
            this.amount = amount;
        }
    }

    private final long window;
    private final long quota;
    private final long limit;
    private final boolean refundAtSettlement;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long sum;

    SlidingWindowMeter(long quota, long limit, boolean refundAtSettlement) {
        this(MINUTE, quota, limit, refundAtSettlement);
    }

    SlidingWindowMeter(long windowMillis, long quota, long limit, boolean refundAtSettlement) {
        this.window = windowMillis;
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
    public long earliestFit(long amount, long fromMillis) {
        if (amount > quota) {
            return Long.MAX_VALUE;
        }
        long held = sum;
        long at = fromMillis;
        var pending = entries.iterator();
        Entry next = null;
        while (pending.hasNext()) {
            next = pending.next();
            if (next.at > fromMillis - window) {
                break;
            }
            held -= next.amount;
            next = null;
        }
        while (held + amount > quota) {
            if (next == null) {
                return Long.MAX_VALUE;
            }
            at = next.at + window;
            held -= next.amount;
            next = null;
            while (pending.hasNext()) {
                Entry after = pending.next();
                if (after.at + window > at) {
                    next = after;
                    break;
                }
                held -= after.amount;
            }
        }
        return at;
    }

    /** When the window will hold nothing, supposing nothing else is charged. */
    long earliestEmpty(long fromMillis) {
        return entries.isEmpty() ? fromMillis : Math.max(fromMillis, entries.peekLast().at + window);
    }

    /** Whether the window holds nothing now (the short-horizon limit lets a lone call through). */
    boolean emptyAt(long nowMillis) {
        expire(nowMillis);
        return entries.isEmpty();
    }

    @Override
    public void settle(Object handle, long reserved, long actual, long nowMillis) {
        expire(nowMillis);
        long delta = actual - reserved;
        Entry entry = (Entry) handle;
        if (refundAtSettlement || entry.at <= nowMillis - window) {
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
        while (!entries.isEmpty() && entries.peekFirst().at <= nowMillis - window) {
            sum -= entries.pollFirst().amount;
        }
    }
}
