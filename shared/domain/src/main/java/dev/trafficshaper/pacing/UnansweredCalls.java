package dev.trafficshaper.pacing;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The calls the drainer made itself, from their start until their answer says when they reached
 * the meter, and how far the bucket model stood above a meter at its cap that had not yet charged
 * them.
 *
 * <p>Why: such a call is off the model's span from its start, but its request may reach Bedrock
 * later (656 ms for a cold client's first call in {@code LocalRunIT}); a meter at its cap refills
 * nothing until it does, while the model refills from the start. The answer bounds the lag: its
 * arrival less the latency Bedrock reports.
 *
 * <pre>
 *   while a call may be on its way (its first {@value RefundingBucket#MAX_LAG_MILLIS} ms):
 *     peak = max of (level + held back − ceiling + charges of the unanswered calls on their way)
 *   at its answer (on the pacer's clock: the drainer adds how far that ran ahead when the call
 *     started), lag = reached − charge (at most {@value RefundingBucket#MAX_LAG_MILLIS} ms):
 *     give back min(peak, quota × lag / 60 s), and lower every other call's peak by as much
 * </pre>
 *
 * A call whose window ended since the last look is given that look too (its peak can only be
 * overstated).
 */
final class UnansweredCalls {

    private final Map<Admission, Call> calls = new IdentityHashMap<>();
    private long lookedAt = Long.MIN_VALUE;

    /** The drainer started {@code admission}'s call, charged {@code amounts} at {@code chargedAtMillis}. */
    void started(Admission admission, long chargedAtMillis, long[] amounts) {
        calls.put(admission, new Call(chargedAtMillis, amounts));
    }

    /**
     * Notes for each call that may still be on its way how far the model stands above a meter at
     * its cap that has charged none of them; {@code above[i]} = level + held back − ceiling.
     */
    void look(long nowMillis, double[] above) {
        if (!calls.isEmpty()) {
            long[] pending = new long[above.length];
            for (Call call : calls.values()) {
                if (call.mayBeOnItsWay(lookedAt)) {
                    for (int i = 0; i < pending.length; i++) {
                        pending[i] += call.amounts[i];
                    }
                }
            }
            for (Call call : calls.values()) {
                if (call.mayBeOnItsWay(lookedAt)) {
                    for (int i = 0; i < above.length; i++) {
                        call.peak[i] = Math.max(call.peak[i], above[i] + pending[i]);
                    }
                }
            }
        }
        lookedAt = Math.max(lookedAt, nowMillis);
    }

    /**
     * {@code admission}'s call reached the meter by {@code reachedMillis}: what the model owes
     * back per dimension, with {@code quotaPerMinute} the quota's refill; null if it was not
     * waited for.
     */
    double[] answered(Admission admission, long reachedMillis, long[] quotaPerMinute) {
        Call call = calls.remove(admission);
        if (call == null) {
            return null;
        }
        long lag = Math.max(0, Math.min(RefundingBucket.MAX_LAG_MILLIS, reachedMillis - call.chargedAtMillis));
        double[] owed = new double[quotaPerMinute.length];
        for (int i = 0; i < owed.length; i++) {
            owed[i] = Math.max(0.0, Math.min(call.peak[i], quotaPerMinute[i] * lag / 60_000.0));
            for (Call other : calls.values()) {
                other.peak[i] -= owed[i]; // the model stands that much lower for them too
            }
        }
        return owed;
    }

    /** The meter never took {@code admission}'s call, or it is no longer waited for. */
    void forget(Admission admission) {
        calls.remove(admission);
    }

    /** Forgets the calls charged before {@code beforeMillis}. */
    void forgetBefore(long beforeMillis) {
        calls.values().removeIf(call -> call.chargedAtMillis < beforeMillis);
    }

    private static final class Call {
        final long chargedAtMillis;
        final long[] amounts;
        /** The most the model stood above a meter at its cap that had not charged it, per dimension. */
        final double[] peak;

        Call(long chargedAtMillis, long[] amounts) {
            this.chargedAtMillis = chargedAtMillis;
            this.amounts = amounts;
            this.peak = new double[amounts.length];
            Arrays.fill(peak, Double.NEGATIVE_INFINITY);
        }

        boolean mayBeOnItsWay(long atMillis) {
            return chargedAtMillis + RefundingBucket.MAX_LAG_MILLIS > atMillis;
        }
    }
}
