package dev.trafficshaper.pacing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The net charges of the last 60 seconds in one quota dimension, each attributed to the moment it
 * was admitted.
 *
 * <p>Why attribute a refund to the admission and not to the settlement: providers may meter a
 * minute as a token bucket, a clock-minute window or a sliding window, and may book a refund when it
 * happens or correct the original charge. Booking every refund against the charge it corrects gives
 * a window sum at least as large as any of those meters sees, so keeping it under the target keeps
 * all of them under quota. The same bound holds for a bucket of one minute's capacity: a bucket can
 * only be overdrawn if some window of at most 60 s takes more than the quota.
 *
 * <p>Entries expire once they are {@code windowMillis} old; adjustments to expired entries are no
 * longer visible to any window that matters and are dropped.
 *
 * <p>Entries are kept in time order. A charge is never booked before the latest entry: after a
 * handoff the successor's clock may run a little behind its predecessor's, and booking its first
 * charges at the restored entries' time only keeps them in the window a few milliseconds longer.
 */
final class SlidingWindowLedger {

    private final long windowMillis;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long sum;
    private long openExcess;

    SlidingWindowLedger(long windowMillis) {
        this.windowMillis = windowMillis;
    }

    /** One admitted charge; the handle a settlement adjusts. */
    static final class Entry {
        private final long at;
        private long amount;
        private long excess;

        private Entry(long at, long amount) {
            this.at = at;
            this.amount = amount;
        }

        /**
         * A charge of a call still open whose admission has left the window: outside any ledger, so
         * its settlement adjusts nothing in the window (a successor books it for the learners and
         * the bucket model only).
         */
        static Entry detached(long atMillis, long amount) {
            return new Entry(atMillis, amount);
        }

        long at() {
            return at;
        }

        long amount() {
            return amount;
        }
    }

    /**
     * Books a charge of which {@code excess} is reserved beyond what the call is expected to use;
     * the excess counts as open (see {@link #openExcess}) until the charge is adjusted or expires.
     */
    Entry record(long amount, long excess, long nowMillis) {
        expire(nowMillis);
        Entry latest = entries.peekLast();
        Entry entry = new Entry(latest == null ? nowMillis : Math.max(nowMillis, latest.at), amount);
        entry.excess = Math.max(0, excess);
        entries.addLast(entry);
        sum += amount;
        openExcess += entry.excess;
        return entry;
    }

    /** Corrects an earlier charge; a negative delta is a refund. The charge is no longer open. */
    void adjust(Entry entry, long delta, long nowMillis) {
        expire(nowMillis);
        if (entry.at > nowMillis - windowMillis) {
            entry.amount += delta;
            sum += delta;
            openExcess -= entry.excess;
        }
        entry.excess = 0;
    }

    /** The excess of the charges still open and still in the window. */
    long openExcess(long nowMillis) {
        expire(nowMillis);
        return openExcess;
    }

    long sum(long nowMillis) {
        expire(nowMillis);
        return sum;
    }

    /**
     * The earliest time, not before {@code nowMillis}, at which {@code amount} more fits under
     * {@code limit}. A charge larger than the limit on its own fits once the window is empty, so a
     * single oversize request is never starved.
     */
    long earliestFit(long amount, long limit, long nowMillis) {
        expire(nowMillis);
        long excess = sum + amount - Math.max(limit, amount);
        if (excess <= 0) {
            return nowMillis;
        }
        long freed = 0;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            freed += entry.amount;
            if (freed >= excess) {
                return entry.at + windowMillis;
            }
        }
        Entry last = entries.peekLast();
        return last == null ? nowMillis : last.at + windowMillis;
    }

    /**
     * The live net charges merged into buckets of {@code bucketMillis} (aligned to the epoch), each
     * dated at its latest entry, oldest first. Every unit is dated no earlier than it was booked, so
     * a ledger rebuilt from them holds each charge in the window at least as long. Entries of zero
     * (released admissions) are left out, and so would be a negative one: dating a credit later
     * would understate the sum, dropping it only overstates it.
     */
    List<PacerState.WindowCharge> compact(long bucketMillis, long nowMillis) {
        expire(nowMillis);
        List<PacerState.WindowCharge> buckets = new ArrayList<>();
        long bucket = Long.MIN_VALUE;
        long latest = Long.MIN_VALUE;
        long amount = 0;
        for (Entry entry : entries) {
            if (entry.amount <= 0) {
                continue;
            }
            long index = Math.floorDiv(entry.at, bucketMillis);
            if (index != bucket && amount > 0) {
                buckets.add(new PacerState.WindowCharge(latest, amount));
                amount = 0;
            }
            bucket = index;
            latest = entry.at;
            amount = Math.addExact(amount, entry.amount);
        }
        if (amount > 0) {
            buckets.add(new PacerState.WindowCharge(latest, amount));
        }
        return buckets;
    }

    /** Books a charge carried over from a predecessor; charges must come oldest first. */
    void restore(long atMillis, long amount, long nowMillis) {
        expire(nowMillis);
        Entry latest = entries.peekLast();
        if (latest != null && atMillis < latest.at) {
            throw new IllegalArgumentException("restored charges must come oldest first");
        }
        if (atMillis > nowMillis - windowMillis) {
            entries.addLast(new Entry(atMillis, amount));
            sum += amount;
        }
    }

    /**
     * Books an open call carried over from a predecessor as its own entry, with its excess open as
     * it was; returns its handle, or null when it has already left the window. Oldest first, as
     * {@link #restore}.
     */
    Entry restoreOpen(long atMillis, long amount, long excess, long nowMillis) {
        expire(nowMillis);
        Entry latest = entries.peekLast();
        if (latest != null && atMillis < latest.at) {
            throw new IllegalArgumentException("restored charges must come oldest first");
        }
        if (atMillis <= nowMillis - windowMillis) {
            return null;
        }
        Entry entry = new Entry(atMillis, amount);
        entry.excess = Math.max(0, excess);
        entries.addLast(entry);
        sum += amount;
        openExcess += entry.excess;
        return entry;
    }

    long latestAt() {
        Entry latest = entries.peekLast();
        return latest == null ? Long.MIN_VALUE : latest.at;
    }

    boolean isEmpty(long nowMillis) {
        expire(nowMillis);
        return entries.isEmpty();
    }

    private void expire(long nowMillis) {
        long horizon = nowMillis - windowMillis;
        while (!entries.isEmpty() && entries.peekFirst().at <= horizon) {
            Entry gone = entries.pollFirst();
            sum -= gone.amount;
            openExcess -= gone.excess;
            gone.excess = 0;
        }
    }
}
