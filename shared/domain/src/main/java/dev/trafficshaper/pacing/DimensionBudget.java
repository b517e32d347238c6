package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.QuotaDimension;
import java.util.ArrayList;
import java.util.List;

/**
 * One quota dimension as a budget that regenerates continuously, with two guards:
 *
 * <ul>
 *   <li><b>Even spacing</b> (a generic cell-rate algorithm): every admission of {@code c} units
 *       moves the theoretical arrival time {@code tat} forward by {@code c / rate}; the next may go
 *       once the clock reaches it. Refunds move it back. Idle time does not accumulate credit beyond
 *       a small lateness allowance, so the pacer never dumps a minute's budget in one clump.
 *   <li><b>The 60 s window</b>: net charges admitted in any 60 s never exceed target × quota,
 *       whatever the spacing allows (spacing alone can overshoot by one request's cost).
 * </ul>
 *
 * <pre>
 *   rate(t)    = target(t) × slowStart(t) × quotaPerMinute / 60 000 ms
 *   admit at   max(tat, earliest time the 60 s window fits c)
 *   tat'       = max(tat, now − lateness) + c / rate(now)
 * </pre>
 *
 * The lateness allowance lets a drainer that wakes a few milliseconds late keep its pace instead of
 * losing every late millisecond for good.
 *
 * <p>The spacing may be charged less than the window: {@link Pacer} spaces each admission at its
 * expected cost (see {@link OutputShare}) while the window holds its whole reservation, and the
 * settlement corrects each by what it differs from what that one was charged.
 */
final class DimensionBudget {

    static final long WINDOW_MILLIS = 60_000;
    static final long LATENESS_MICROS = 250_000;

    private final QuotaDimension dimension;
    private final long quotaPerMinute;
    private final SlidingWindowLedger ledger = new SlidingWindowLedger(WINDOW_MILLIS);
    /** The charges of calls {@link BankedCapacity} paid for, also in {@code ledger}: its credit. */
    private final SlidingWindowLedger banked = new SlidingWindowLedger(WINDOW_MILLIS);
    private long tatMicros = Long.MIN_VALUE;

    DimensionBudget(QuotaDimension dimension, long quotaPerMinute) {
        if (quotaPerMinute <= 0) {
            throw new IllegalArgumentException(dimension + " quota must be positive");
        }
        this.dimension = dimension;
        this.quotaPerMinute = quotaPerMinute;
    }

    QuotaDimension dimension() {
        return dimension;
    }

    long quotaPerMinute() {
        return quotaPerMinute;
    }

    long windowLimit(double target) {
        return (long) Math.floor(target * quotaPerMinute);
    }

    /** When the spacing allows the next admission. */
    long nextSlot(long nowMillis) {
        if (tatMicros == Long.MIN_VALUE) {
            return nowMillis;
        }
        return Math.max(nowMillis, ceilMillis(tatMicros));
    }

    /**
     * Earliest time the window takes {@code amount} more, forgiving {@code forgiveness} of the open
     * calls' excess reservation (see {@link Headroom}); 0 is the strict bound.
     */
    long windowFit(long amount, double target, double forgiveness, long nowMillis) {
        return windowFit(amount, target, forgiveness, false, nowMillis);
    }

    /**
     * The same, crediting the banked calls' charges still in the window while {@code bankTrusted}.
     * The credit leaves the window with those charges, so a time after now may prove early: the
     * caller asks again then, and an admission is only ever made when the charge fits now.
     */
    long windowFit(long amount, double target, double forgiveness, boolean bankTrusted, long nowMillis) {
        long forgiven = forgiveness == 0.0 ? 0 : (long) Math.floor(forgiveness * ledger.openExcess(nowMillis));
        long credit = bankTrusted ? banked.sum(nowMillis) : 0;
        return ledger.earliestFit(amount, windowLimit(target) + forgiven + credit, nowMillis);
    }

    /** Whether nothing was charged in the last 60 s. */
    boolean windowEmpty(long nowMillis) {
        return ledger.isEmpty(nowMillis);
    }

    /** Books a call the bank paid for: in the window and in the bank's credit, not in the spacing. */
    SlidingWindowLedger.Entry[] chargeBanked(long amount, long spaced, long nowMillis) {
        return new SlidingWindowLedger.Entry[] {
            ledger.record(amount, amount - spaced, nowMillis), banked.record(amount, 0, nowMillis)};
    }

    /** The bank's credit still in the window, dated as {@link #export} dates the charges. */
    List<PacerState.WindowCharge> exportCredit(long nowMillis) {
        return banked.compact(PacerState.BUCKET_MILLIS, nowMillis);
    }

    /** Continues a predecessor's credit, oldest first. */
    void restoreCredit(List<PacerState.WindowCharge> charges, long nowMillis) {
        for (PacerState.WindowCharge charge : charges) {
            banked.restore(charge.atMillis(), charge.amount(), nowMillis);
        }
    }

    /** Books the outcome of a banked call against its window charge and its credit. */
    void adjustBanked(SlidingWindowLedger.Entry entry, SlidingWindowLedger.Entry credit, long delta, long nowMillis) {
        if (delta != 0) {
            ledger.adjust(entry, delta, nowMillis);
            banked.adjust(credit, delta, nowMillis);
        }
    }

    /** Books an admission of {@code amount} in the window and {@code spaced} of it in the spacing. */
    SlidingWindowLedger.Entry charge(long amount, long spaced, double rateShare, long nowMillis) {
        long floor = nowMillis * 1_000 - LATENESS_MICROS;
        long base = tatMicros == Long.MIN_VALUE ? nowMillis * 1_000 : Math.max(tatMicros, floor);
        tatMicros = base + intervalMicros(spaced, rateShare);
        return ledger.record(amount, amount - spaced, nowMillis);
    }

    /**
     * Books the outcome of an admission: {@code delta} against its window charge (negative is a
     * refund) and {@code spacingDelta} (the outcome minus what the spacing charged) against the
     * spacing.
     */
    void adjust(SlidingWindowLedger.Entry entry, long delta, long spacingDelta, double rateShare, long nowMillis) {
        if (delta != 0) {
            ledger.adjust(entry, delta, nowMillis);
        }
        if (spacingDelta != 0 && tatMicros != Long.MIN_VALUE) {
            long floor = nowMillis * 1_000 - LATENESS_MICROS;
            tatMicros = Math.max(floor, tatMicros + intervalMicros(spacingDelta, rateShare));
        }
    }

    /** Time of the latest charge booked, {@link Long#MIN_VALUE} if none. */
    long latestChargeAt() {
        return ledger.latestAt();
    }

    PacerState.DimensionState export(long nowMillis) {
        return export(PacerState.BUCKET_MILLIS, nowMillis);
    }

    /** The same with the window's charges in buckets of {@code bucketMillis}. */
    PacerState.DimensionState export(long bucketMillis, long nowMillis) {
        long nextSlot = tatMicros > nowMillis * 1_000 ? tatMicros : PacerState.NEVER;
        return new PacerState.DimensionState(quotaPerMinute, nextSlot, ledger.compact(bucketMillis, nowMillis));
    }

    /**
     * Continues from a predecessor's state. Charges are kept in their own units, so a lower quota
     * applies to them at once; {@code chargeScale} (at least 1) inflates them when one unit now
     * costs more (a higher output burndown). Spacing still owed is stretched when the quota is lower
     * and kept when it is higher. A next slot already past is forgotten (and not exported): the
     * first admission then spaces from its own time, as in a fresh budget, giving up at most the
     * lateness allowance.
     */
    void restore(PacerState.DimensionState state, double chargeScale, long nowMillis) {
        restore(state, chargeScale, List.of(), nowMillis);
    }

    /**
     * The same, splitting out of their buckets the charges of the open calls {@code open} (this
     * dimension's, in any order) so that each can be settled on its own. Each keeps its bucket's
     * date (never earlier than it was booked) and its excess open. Returns their handles in the
     * order given; null for one whose bucket is gone or does not hold it, which stays in the bucket.
     */
    SlidingWindowLedger.Entry[] restore(PacerState.DimensionState state, double chargeScale,
            List<PacerState.OpenCharge> open, long nowMillis) {
        SlidingWindowLedger.Entry[] handles = new SlidingWindowLedger.Entry[open.size()];
        boolean[] placed = new boolean[open.size()];
        for (PacerState.WindowCharge charge : state.charges()) {
            long amount = scaled(charge.amount(), chargeScale);
            List<Integer> inBucket = new ArrayList<>();
            long split = 0;
            for (int i = 0; i < open.size(); i++) {
                PacerState.OpenCharge call = open.get(i);
                // buckets are dated at their latest entry: a call is in the first one dated at or after it
                if (handles[i] == null && !placed[i] && call.atMillis() <= charge.atMillis()) {
                    placed[i] = true;
                    inBucket.add(i);
                    split += scaled(call.amount(), chargeScale);
                }
            }
            if (inBucket.isEmpty() || split > amount) {
                ledger.restore(charge.atMillis(), amount, nowMillis);
                continue;
            }
            if (amount > split) {
                ledger.restore(charge.atMillis(), amount - split, nowMillis);
            }
            for (int i : inBucket) {
                PacerState.OpenCharge call = open.get(i);
                long reserved = scaled(call.amount(), chargeScale);
                handles[i] = ledger.restoreOpen(charge.atMillis(), reserved, reserved - call.spaced(), nowMillis);
            }
        }
        long nowMicros = nowMillis * 1_000;
        if (state.nextSlotMicros() != PacerState.NEVER && state.nextSlotMicros() > nowMicros) {
            long owed = state.nextSlotMicros() - nowMicros;
            if (state.quotaPerMinute() > quotaPerMinute) {
                owed = (long) Math.ceil((double) owed * state.quotaPerMinute() / quotaPerMinute);
            }
            tatMicros = nowMicros + owed;
        }
        return handles;
    }

    private static long scaled(long amount, double chargeScale) {
        return chargeScale == 1.0 ? amount : (long) Math.ceil(amount * chargeScale);
    }

    /** The open calls' reservation beyond what they are expected to use: what forgiveness acts on. */
    long openExcess(long nowMillis) {
        return ledger.openExcess(nowMillis);
    }

    long windowSum(long nowMillis) {
        return ledger.sum(nowMillis);
    }

    /** Time the budget needs to regenerate {@code amount} at the given share of quota. */
    long intervalMicros(long amount, double rateShare) {
        return Math.round(amount * 60_000_000.0 / (rateShare * quotaPerMinute));
    }

    private static long ceilMillis(long micros) {
        return Math.floorDiv(micros + 999, 1_000);
    }
}
