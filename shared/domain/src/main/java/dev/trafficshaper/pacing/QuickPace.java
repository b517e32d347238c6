package dev.trafficshaper.pacing;

import java.util.Arrays;

/**
 * The pace a trusted clock minute's turn is spent at ({@link ClockMinuteWindow}'s quick turn), raised
 * to twice the share of the quota the meter was shown to take within a sub-second horizon, unrefused.
 *
 * <p>Why: a fixed window's minute is best spent in one clump at its turn, as the oracle does. Where
 * calls outlive the minute only those that settle before the next turn are refunded, so each second
 * the turn takes costs refunds; elsewhere the minute's last calls wait on its first. The quick turn
 * starts at {@value ClockMinuteWindow#QUICK_MULTIPLE} × the even rate (after a ramp), a pace at which a
 * sub-second limit such as the one Bedrock enforces refuses within a second, and it falls to twice
 * the even rate once refused. Where the meter takes it, the pace it took is evidence, and the next
 * turn may go faster:
 *
 * <pre>
 *   shown     = the most the minute's quick calls reserved within any {@value BunchingGuard#HORIZON_MILLIS} ms
 *               (share of the quota, fullest dimension), of calls sent at least the refusal time
 *               before the minute's end (their answers are in)
 *   at the end of a minute that was trusted throughout, with no call of it refused:
 *       pace ← min({@value #MOST_MULTIPLE}, max(pace, 2 × shown × 60 000 / {@value BunchingGuard#HORIZON_MILLIS}))
 *   the trust withdrawn: pace ← {@value ClockMinuteWindow#QUICK_MULTIPLE}
 * </pre>
 *
 * The pace is a multiple of the even rate (the target's share of the quota a minute), so each turn
 * reserves within a horizon at most twice the share the meter took from the pacer before, exactly
 * twice at a target of 1: the multiplicative probe headroom makes, applied to the pace. A meter
 * refusing the raised pace sets the quick pace's refusal ({@link ClockMinuteWindow}): twice the even
 * rate from then on, as for a refusal at the first pace. At {@value #MOST_MULTIPLE} × the even rate a
 * minute's quota goes in under a second; a faster pace gains nothing the drainer could send.
 *
 * <p>Load states: <b>first</b> ({@value ClockMinuteWindow#QUICK_MULTIPLE} ×, after the ramp);
 * <b>raised</b> (above it, no ramp: the meter took a quick turn); <b>capped</b>
 * ({@value #MOST_MULTIPLE} ×). A refused quick pace is {@link ClockMinuteWindow}'s state, not this one's.
 *
 * <p>Measured ({@code simulate --all --strict}, production defaults, with the drainer handing off
 * before a quick turn rather than just after it, {@code DrainWindow.beforeTurn}): at seed 42 every
 * fixed-window run 0.001–0.013× nearer the oracle or unchanged ({@code seed-burst} 1.015× → 1.002×,
 * {@code mixed-sizes} 1.005× → 1.000×, {@code claude-burndown-overreserved} and
 * {@code long-latency-otpm} 1.047× → 1.043×), no other run and no throttle changed (366); over seeds
 * 42–51 the fixed window's runs above 1.10× 8 → 4 of 160 ({@code long-generations-split-tpm} 1.109×
 * → 1.093× on average), {@code long-latency-otpm} 1.050× → 1.035×, no run slower by more than
 * 0.001×, throttles unchanged; with the simulator's short-horizon limit on, every run as before (its
 * first quick turn is refused); pessimistic deployment 1,555 → 1,546 throttles. Raised after any
 * trusted minute with two quick calls, whatever their spread, the short-horizon limit cost
 * fixed-window {@code spiky} 16 → 195 throttles: a minute whose few quick calls showed nothing
 * raised the pace. Without the hand-off moved, the raised pace cost five fixed-window runs over the
 * ten seeds a whole minute (for example {@code heavy-tenant} seed 43, 557.2 s → 606.3 s): a hand-off
 * 0.7 s after a turn left 683 of the turn's 939 open calls uncarried.
 *
 * <p>A successor resumes the pace ({@link PacerState.ClockMinuteState#quickPace}).
 */
final class QuickPace {

    static final double MOST_MULTIPLE = 64.0;

    private double pace = ClockMinuteWindow.QUICK_MULTIPLE;
    /** The current minute's quick calls, in the order sent: when, and their share of the quota. */
    private long[] sentAt = new long[64];
    private double[] shares = new double[64];
    private int count;
    /** Whether a call of the current minute was refused, or the trust withdrawn in it. */
    private boolean refused;

    /** The pace a trusted minute's turn is spent at, as a multiple of the even rate. */
    double pace() {
        return pace;
    }

    /** Whether the meter took a quick turn already: the pace is above the first, and needs no ramp. */
    boolean shown() {
        return pace > ClockMinuteWindow.QUICK_MULTIPLE;
    }

    /** A call sent at the quick pace, reserving {@code share} of the quota in its fullest dimension. */
    void sent(long atMillis, double share) {
        if (count == sentAt.length) {
            sentAt = Arrays.copyOf(sentAt, count * 2);
            shares = Arrays.copyOf(shares, count * 2);
        }
        sentAt[count] = atMillis;
        shares[count] = share;
        count++;
    }

    /** The meter refused a call of the current minute: it shows no pace. */
    void refused() {
        refused = true;
    }

    /** The meter contradicted the trust: the pace starts over, and the current minute shows nothing. */
    void withdrawn() {
        pace = ClockMinuteWindow.QUICK_MULTIPLE;
        refused = true;
    }

    /**
     * The minute ending at {@code endMillis} is over: if it was trusted ({@code trusted}) and none of
     * its calls refused, the pace rises to twice what its answered calls showed; the next minute
     * starts afresh.
     */
    void minuteEnded(long endMillis, long refusalMillis, boolean trusted) {
        if (trusted && !refused) {
            double shown = densest(endMillis - refusalMillis);
            pace = Math.min(MOST_MULTIPLE, Math.max(pace, 2 * shown * ClockMinuteWindow.MINUTE_MILLIS
                    / BunchingGuard.HORIZON_MILLIS));
        }
        count = 0;
        refused = false;
    }

    /** The most the calls sent before {@code answeredBefore} reserved within any horizon. */
    private double densest(long answeredBefore) {
        double most = 0;
        double inHorizon = 0;
        int first = 0;
        for (int i = 0; i < count && sentAt[i] < answeredBefore; i++) {
            inHorizon += shares[i];
            while (sentAt[i] - sentAt[first] >= BunchingGuard.HORIZON_MILLIS) {
                inHorizon -= shares[first++];
            }
            most = Math.max(most, inHorizon);
        }
        return most;
    }

    /** A predecessor's pace (within [{@value ClockMinuteWindow#QUICK_MULTIPLE}, {@value #MOST_MULTIPLE}], as its state holds it). */
    void restore(double handedOver) {
        pace = handedOver;
        count = 0;
        refused = false;
    }
}
