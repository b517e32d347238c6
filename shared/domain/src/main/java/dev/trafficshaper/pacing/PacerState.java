package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a drainer hands to its successor so the successor paces on where it stopped, captured by
 * {@link Pacer#export} and continued by {@link Pacer#resume}. A successor that started empty would
 * forget the last minute's charges and the spacing still owed, and could spend on top of them.
 *
 * <p>Why the window is kept as buckets: the ledger holds one entry per admission, which grows with
 * the request rate. The state keeps, per dimension, the net charges still inside the 60 s window
 * merged into {@value #BUCKET_MILLIS} ms buckets, so at most {@value #MAX_CHARGES} per dimension
 * whatever the rate. Each bucket is dated at its <em>latest</em> entry: no charge is dated earlier
 * than it was made, so the successor holds every charge in its window at least as long as the
 * predecessor would have, and its window sums are never below the predecessor's. Dating a bucket
 * at its start would let charges leave up to one bucket early, which is exactly the overshoot the
 * window guard exists to prevent. The price is that the successor sees each bucket leave in one
 * step instead of entry by entry: a predecessor running at the target hands over a full window,
 * and the successor cannot add to it until a whole bucket has cleared. That costs at most one
 * bucket of quota per handoff (5 s, a twelfth of a minute's quota; 1 s buckets would cost a fifth
 * of that but make the state five times larger).
 *
 * <pre>
 *   bucket(entry) = floor(entry.at / 5 000 ms)
 *   charge        = (at = max entry.at in the bucket, amount = Σ entry.amount)
 * </pre>
 *
 * <p>What carries over, and how it is restored:
 * <ul>
 *   <li><b>Charges</b>: net charges as booked at capture. Admissions still open are charged at
 *       their reservation; at a hand-off they also travel as {@link OpenCall}s, and the successor
 *       books the settlement of each it learns ({@link Pacer#takeCarriedCalls}), including a request
 *       that used more than it reserved (input above its estimate). One it never learns, or one
 *       left out (banked, or beyond {@link #MAX_OPEN_CALLS}), stays charged at its reservation:
 *       that only overstates the window, except for such an excess. A hand-off's state uses
 *       {@link #HANDOFF_BUCKET_MILLIS} buckets instead of {@link #BUCKET_MILLIS}.
 *   <li><b>Spacing</b>: each dimension's next slot, so the successor does not send at once what
 *       the spacing still owes. A slot already past when the successor resumes is forgotten.
 *   <li><b>Throttle feedback</b>: the target at capture and the start of the latest throttle
 *       episode. The successor recovers from that target at its own rate, so the target line is
 *       unchanged and a recent throttle is not forgotten, however old the state. With headroom
 *       on, the level the meter last refused at and the slow recovery line ride in
 *       {@link HeadroomState}, so the successor climbs back to the same ceiling.
 *   <li><b>Catch-up</b>: how often {@link CatchUp}'s quicker spending was halved, in
 *       {@link HeadroomState}, so a successor does not spend at twice the rate a meter refused.
 *   <li><b>Slow start</b>: the last admission and the start of the current ramp. A predecessor busy
 *       until the handoff is not idle, so the successor does not ramp; a state older than the idle
 *       period ramps as usual.
 *   <li><b>Tenant caps</b>: the next slot of each capped tenant still in the future, kept for the
 *       tenants the successor's settings still cap.
 *   <li><b>Output share</b>: the share of the output allowance settled calls generated, so the
 *       successor spaces at the learnt cost at once ({@link OutputShare}).
 *   <li><b>Headroom</b>: the learnt forgiveness and lift ({@link Headroom}), and its budget of
 *       extra calls ({@link HeadroomState}): the calls and probe throttles of the last 10 minutes
 *       as per-minute counts, the wait before the next step and when the last step was taken. So a
 *       10-minute window spanning any number of handoffs holds at most 1% of its calls as probe
 *       throttles, and a probe the meter kept refusing stays slowed down.
 *   <li><b>Input scale</b>: the learnt ratio of actual to estimated input, as its running mean,
 *       spread and sample count ({@link InputScaleState}), so the successor reserves the learnt
 *       input at once instead of the estimate for its first 16 settlements.
 *   <li><b>Clock minute</b>: whether the meter was found to be a fixed clock-minute window, how
 *       often that trust was withdrawn, and what the current minute's account holds
 *       ({@link ClockMinuteState}), so a trusted successor does not spend the minute twice; and the
 *       probe it owes, so a hand-off (every 270 s with calls in the drainer) does not start the
 *       learner over.
 *   <li><b>Bank and bucket model</b>: the bank's withdrawals, open episode and credit, the bunching
 *       guard's cap ({@link BankState}), and at a hand-off the refunding bucket's proof, trust and
 *       level ({@link BucketModelState}), so a successor pays from the same model its predecessor had.
 * </ul>
 * Lane and tenant fair-share tags and the admission and throttle counters of {@link PacerSnapshot}
 * start afresh: a flow's turn may shift by about one request, which costs no quota.
 *
 * <p>A state older than the window holds no charge the successor keeps and, once its spacing is
 * paid and its target recovered, restores to a pacer that behaves as a fresh one.
 *
 * <p>For an adapter: plain numbers, enum keys, strings and lists, each dimension bounded by
 * {@value #MAX_CHARGES} charges and the headroom budget by 11 minutes, so about 2 KB of JSON for a
 * model limited on tokens only and under 4 KB with all four dimensions (the budget's minutes are
 * about 1 KB of it). Times are epoch millis, next slots epoch micros.
 * {@link #NEVER} ({@link Long#MIN_VALUE}) marks what never happened: read numbers back as 64-bit
 * integers, not doubles.
 *
 * @param capturedAtMillis     when the predecessor exported
 * @param outputBurndown       the exported quota's output burndown, to rescale token charges if it changes
 * @param dimensions           per limited dimension of the exported quota, its window and next slot
 * @param target               the target share at capture
 * @param lastThrottleAtMillis start of the latest throttle episode, or {@link #NEVER}
 * @param lastAdmissionAtMillis the latest admission, or {@link #NEVER}
 * @param slowStartAtMillis    start of the latest slow-start ramp, or {@link #NEVER}
 * @param tenantNextSlotMicros capped tenants still spaced out at capture, by tenant id
 * @param outputShare          the learnt share of the output allowance that calls generate, in
 *                             [1/64, 1]; 0 (what a state written before it existed reads as) means
 *                             nothing learnt and restores as 1
 * @param forgiveness          headroom's learnt share of the open calls' excess reservation the
 *                             meter forgives, in [0, 1] (0: strict, and what an older state reads)
 * @param lift                 headroom's learnt lift of the target, at least 0
 * @param headroomBudget       headroom's budget of extra calls and its step; absent (an older
 *                             state) reads as {@link HeadroomState#NONE}: no calls to spend on
 * @param inputScale           the learnt input scale; absent (an older state) reads as
 *                             {@link InputScaleState#NONE}: nothing learnt
 * @param bank                 what {@link BankedCapacity} and {@link BunchingGuard} learnt, and the
 *                             bank's credit still in the window; absent (an older state) reads as
 *                             {@link BankState#NONE}: nothing learnt, no credit
 * @param openCalls            the calls still open at a hand-off, each with the window charges it
 *                             holds (counted in {@link DimensionState#charges} while in the window),
 *                             so the successor can book their settlements ({@link OpenCall}); empty
 *                             in the periodic statuses and in an older state: they stay charged
 * @param clockMinute          what {@link ClockMinuteWindow} learnt and the current clock minute's
 *                             account; absent (an older state) reads as {@link ClockMinuteState#NONE}:
 *                             nothing learnt
 */
public record PacerState(
        long capturedAtMillis,
        int outputBurndown,
        Map<QuotaDimension, DimensionState> dimensions,
        double target,
        long lastThrottleAtMillis,
        long lastAdmissionAtMillis,
        long slowStartAtMillis,
        Map<String, Long> tenantNextSlotMicros,
        double outputShare,
        double forgiveness,
        double lift,
        HeadroomState headroomBudget,
        InputScaleState inputScale,
        BankState bank,
        List<OpenCall> openCalls,
        ClockMinuteState clockMinute) {

    /** Marks a time for something that has not happened. */
    public static final long NEVER = Long.MIN_VALUE;

    /** Width of the buckets the window's charges are merged into. */
    public static final long BUCKET_MILLIS = 5_000;

    /** Most charges one dimension holds in a periodic status: a 60 s window touches at most 13 aligned 5 s buckets. */
    public static final int MAX_CHARGES = (int) (DimensionBudget.WINDOW_MILLIS / BUCKET_MILLIS) + 1;

    /**
     * Width of the buckets at a hand-off ({@link Pacer#export(long, java.util.Collection)}): one
     * state, published once per hand-off, so it may be larger. Each bucket leaves the successor's
     * window on its latest entry's date, so a pacer at the target loses up to one bucket of quota
     * per hand-off: 5 s buckets cost 0.015 of utilisation at a hand-off every 270 s (at-quota,
     * calls in the drainer), 250 ms buckets nothing measurable, for at most 241 charges a dimension
     * (about 8 KB of JSON) in that one state.
     */
    public static final long HANDOFF_BUCKET_MILLIS = 250;

    /** Most charges one dimension can hold: a 60 s window touches at most 241 aligned 250 ms buckets. */
    public static final int MAX_HANDOFF_CHARGES = (int) (DimensionBudget.WINDOW_MILLIS / HANDOFF_BUCKET_MILLIS) + 1;

    /** Width of headroom's budget minutes. */
    public static final long MINUTE_MILLIS = 60_000;

    /**
     * One limited quota dimension at capture.
     *
     * @param quotaPerMinute the dimension's quota when exported
     * @param nextSlotMicros when the spacing allows the next admission (epoch micros), or {@link #NEVER}
     *                       if that was not after the capture
     * @param charges        net charges still in the window, oldest first
     */
    public record DimensionState(long quotaPerMinute, long nextSlotMicros, List<WindowCharge> charges) {

        public DimensionState {
            if (quotaPerMinute <= 0) {
                throw new IllegalArgumentException("quotaPerMinute must be positive, was " + quotaPerMinute);
            }
            if (charges == null) {
                throw new IllegalArgumentException("charges are required");
            }
            charges = List.copyOf(charges);
            if (charges.size() > MAX_HANDOFF_CHARGES) {
                throw new IllegalArgumentException("at most " + MAX_HANDOFF_CHARGES + " charges per dimension, was "
                        + charges.size());
            }
            for (int i = 1; i < charges.size(); i++) {
                if (charges.get(i).atMillis() < charges.get(i - 1).atMillis()) {
                    throw new IllegalArgumentException("charges must be oldest first");
                }
            }
        }
    }

    /**
     * Net charges booked in one bucket of the window.
     *
     * @param atMillis the latest time any of them was booked
     * @param amount   their sum, in the dimension's units
     */
    public record WindowCharge(long atMillis, long amount) {

        public WindowCharge {
            if (amount <= 0) {
                throw new IllegalArgumentException("a window charge must be positive, was " + amount);
            }
        }
    }

    /**
     * Headroom's budget of extra calls at capture, compact whatever the rate: per minute of the
     * last 10, how many calls were admitted and how many probe throttles came back.
     *
     * <p>Why it errs as it does: the budget has room while probe throttles + 1 ≤ 1% of calls,
     * both over the last 10 minutes. Calls are dated at the start of their minute, so the successor
     * lets them leave its window no later than they really do (a minute that began 10 minutes or
     * more before the capture is dropped); throttles are dated at the latest one of their minute,
     * so it holds them at least as long. The successor therefore counts no more calls and no fewer
     * throttles than were really in any window, and never has more room than the predecessor would
     * have had. The price is up to a minute of calls' credit (a tenth of the budget) per handoff.
     *
     * @param stepMillis         the wait between probe steps, doubled by each probe throttle
     * @param lastChangeAtMillis when headroom last stepped or backed off, or {@link #NEVER}
     * @param minutes            the minutes of the last 10 that hold calls or throttles, oldest first
     * @param throttleCeiling    the share of the quota the pacer's window held at the latest throttle
     *                           episode, which the target climbs back to ({@link ThrottleFeedback});
     *                           0 (what an older state reads as) when none is known
     * @param recoveryLine       the throttle feedback's slow recovery line at capture, under the
     *                           state's target while it climbs to the ceiling; 0 when no ceiling
     * @param catchUpWithdrawals how many times {@link CatchUp}'s quicker spending was halved; 0 (what
     *                           an older state reads as) when never
     * @param forgivenessRefused whether the meter refused a call only forgiveness had room for
     *                           ({@link Headroom}): the lift then steps before forgiveness; false
     *                           (what an older state reads as) when not
     */
    public record HeadroomState(long stepMillis, long lastChangeAtMillis, List<BudgetMinute> minutes,
                                double throttleCeiling, double recoveryLine, int catchUpWithdrawals,
                                boolean forgivenessRefused) {

        /** Nothing learnt: the base step, no step taken, no calls to spend on. */
        public static final HeadroomState NONE = new HeadroomState(Headroom.STEP_MILLIS, NEVER, List.of());

        /** A budget and step with no throttle ceiling known and no catch-up withdrawn. */
        public HeadroomState(long stepMillis, long lastChangeAtMillis, List<BudgetMinute> minutes) {
            this(stepMillis, lastChangeAtMillis, minutes, 0.0, 0.0, 0, false);
        }

        /** The same budget, with the throttle feedback's ceiling and slow line at capture. */
        public HeadroomState withThrottleCeiling(double ceiling, double slowLine) {
            return new HeadroomState(stepMillis, lastChangeAtMillis, minutes, ceiling, slowLine, catchUpWithdrawals,
                    forgivenessRefused);
        }

        /** The same budget, with the catch-up's withdrawals. */
        public HeadroomState withCatchUpWithdrawals(int withdrawals) {
            return new HeadroomState(stepMillis, lastChangeAtMillis, minutes, throttleCeiling, recoveryLine, withdrawals,
                    forgivenessRefused);
        }

        /** The same budget, noting that the meter refused a call only forgiveness had room for. */
        public HeadroomState withForgivenessRefused() {
            return new HeadroomState(stepMillis, lastChangeAtMillis, minutes, throttleCeiling, recoveryLine,
                    catchUpWithdrawals, true);
        }

        /** Most minutes a 10-minute window touches. */
        public static final int MAX_MINUTES = (int) (Headroom.BUDGET_WINDOW_MILLIS / MINUTE_MILLIS) + 1;

        public HeadroomState {
            if (stepMillis < Headroom.STEP_MILLIS || stepMillis > Headroom.MAX_STEP_MILLIS) {
                throw new IllegalArgumentException("stepMillis must be within [" + Headroom.STEP_MILLIS + ", "
                        + Headroom.MAX_STEP_MILLIS + "], was " + stepMillis);
            }
            if (minutes == null) {
                throw new IllegalArgumentException("minutes are required (may be empty)");
            }
            minutes = List.copyOf(minutes);
            if (!(throttleCeiling >= 0 && throttleCeiling <= 1) || !(recoveryLine >= 0 && recoveryLine <= 1)) {
                throw new IllegalArgumentException("throttleCeiling and recoveryLine must be shares in [0, 1], were "
                        + throttleCeiling + " and " + recoveryLine);
            }
            if (catchUpWithdrawals < 0) {
                throw new IllegalArgumentException("catchUpWithdrawals must not be negative, was " + catchUpWithdrawals);
            }
            if (minutes.size() > MAX_MINUTES) {
                throw new IllegalArgumentException("at most " + MAX_MINUTES + " minutes, was " + minutes.size());
            }
            for (int i = 1; i < minutes.size(); i++) {
                if (minutes.get(i).startMillis() <= minutes.get(i - 1).startMillis()) {
                    throw new IllegalArgumentException("budget minutes must be distinct and oldest first");
                }
            }
        }
    }

    /**
     * One clock minute of headroom's budget.
     *
     * @param startMillis          the minute's start (a multiple of 60 000)
     * @param calls                calls admitted in it, dated at its start
     * @param throttles            probe throttles in it, dated at the latest of them
     * @param lastThrottleAtMillis the latest probe throttle in it, or {@link #NEVER} when none
     */
    public record BudgetMinute(long startMillis, long calls, long throttles, long lastThrottleAtMillis) {

        public BudgetMinute {
            if (Math.floorMod(startMillis, MINUTE_MILLIS) != 0) {
                throw new IllegalArgumentException("a budget minute starts on a minute, was " + startMillis);
            }
            if (calls < 0 || throttles < 0 || calls + throttles == 0) {
                throw new IllegalArgumentException("a budget minute holds calls or throttles, never negative ones");
            }
            boolean dated = lastThrottleAtMillis != NEVER && lastThrottleAtMillis >= startMillis
                    && lastThrottleAtMillis < startMillis + MINUTE_MILLIS;
            if ((throttles > 0) != dated) {
                throw new IllegalArgumentException("lastThrottleAtMillis is set, within the minute, exactly when"
                        + " there are throttles");
            }
        }
    }

    /**
     * The learnt ratio of actual to estimated input ({@link InputScale}).
     *
     * @param mean    running mean of actual ÷ estimated input
     * @param spread  running mean absolute deviation from it
     * @param samples settlements seen, up to {@value InputScale#WARM_UP} (0: nothing learnt)
     */
    /**
     * The bank, the bunching guard and the refunding bucket's model at capture.
     *
     * @param withdrawals        how often the bank's credit was withdrawn (its share is ½ to that
     *                           power, none from 4 on); 0 is nothing learnt
     * @param episodeStartMillis start of the bank's episode still open, or {@link #NEVER}
     * @param remaining          per dimension, the bank the open episode has left (empty if none)
     * @param credits            per dimension, the bank's charges still in the window while it is
     *                           trusted, dated as {@link DimensionState#charges} are (empty if none)
     * @param guardFactor        the guard's cap as a multiple of the target rate, 0 while off
     * @param guardThrottleAtMillis the guard's latest throttle, or {@link #NEVER}
     * @param nextSlotMicros     the open episode's next slot for a call on the bank, so a successor
     *                           does not send at once what the bank's spacing still owes; a slot
     *                           already past (0 in an older state) is forgotten
     * @param bucketModel        what {@link RefundingBucket} learnt and its level; absent (an older
     *                           state) reads as {@link BucketModelState#NONE}: nothing learnt, empty
     * @param quick              the open episode's quick pace ({@link QuickBank}); absent (an older
     *                           state, or no episode open) reads as {@link QuickBankState#NONE}
     */
    public record BankState(int withdrawals, long episodeStartMillis, Map<QuotaDimension, Long> remaining,
            Map<QuotaDimension, List<WindowCharge>> credits, double guardFactor, long guardThrottleAtMillis,
            long nextSlotMicros, BucketModelState bucketModel, QuickBankState quick) {

        public static final BankState NONE = new BankState(0, NEVER, Map.of(), Map.of(), 0.0, NEVER);

        /** A bank and guard with no slot owed, beside a bucket model that learnt nothing. */
        public BankState(int withdrawals, long episodeStartMillis, Map<QuotaDimension, Long> remaining,
                Map<QuotaDimension, List<WindowCharge>> credits, double guardFactor, long guardThrottleAtMillis) {
            this(withdrawals, episodeStartMillis, remaining, credits, guardFactor, guardThrottleAtMillis, NEVER,
                    BucketModelState.NONE, QuickBankState.NONE);
        }

        /** This state with {@code model} as the bucket model's. */
        public BankState withBucketModel(BucketModelState model) {
            return new BankState(withdrawals, episodeStartMillis, remaining, credits, guardFactor,
                    guardThrottleAtMillis, nextSlotMicros, model, quick);
        }

        public BankState {
            if (withdrawals < 0) {
                throw new IllegalArgumentException("withdrawals must not be negative, was " + withdrawals);
            }
            if (!(guardFactor == 0.0 || (guardFactor >= 1.0 && guardFactor <= BunchingGuard.OFF_ABOVE))) {
                throw new IllegalArgumentException("guardFactor must be 0 or within [1, " + BunchingGuard.OFF_ABOVE
                        + "], was " + guardFactor);
            }
            remaining = remaining == null || remaining.isEmpty() ? Map.of()
                    : Collections.unmodifiableMap(new EnumMap<>(remaining));
            credits = credits == null ? Map.of() : Map.copyOf(credits);
            bucketModel = bucketModel == null ? BucketModelState.NONE : bucketModel;
            quick = quick == null ? QuickBankState.NONE : quick;
        }
    }

    /**
     * The bank's quick pace in its open episode ({@link QuickBank}).
     *
     * @param pace               the multiple of the bank's rate its first allotment goes at (1: even)
     * @param left               what is left of that allotment, normalised as a share of a minute's quota
     * @param firstQuickAtMillis the first quick call (the ramp's start), or {@link #NEVER}
     * @param spent              whether a call went quickly: the bank's calls are then bounded by
     *                           the episode's bucket
     */
    public record QuickBankState(double pace, double left, long firstQuickAtMillis, boolean spent) {

        public static final QuickBankState NONE = new QuickBankState(1.0, 0.0, NEVER, false);

        public QuickBankState {
            if (!(pace >= 1.0 && pace <= QuickBank.MAX_MULTIPLE)) {
                throw new IllegalArgumentException("pace must be within [1, " + QuickBank.MAX_MULTIPLE + "], was " + pace);
            }
            if (!(left >= 0.0)) {
                throw new IllegalArgumentException("left must not be negative, was " + left);
            }
        }
    }

    /**
     * The refunding bucket's model at capture ({@link RefundingBucket}): what it learnt about the
     * meter and the level it counts, so a successor neither forgets a proof nor starts from an
     * empty model while its predecessor's calls settle into it (their refunds are credited as the
     * successor books them, {@link OpenCall}). Only the state published at a hand-off carries it
     * ({@link #NONE} in the periodic statuses): a crashed drainer's last periodic status misses
     * the admissions after it and the sweeper's re-dispatches of its slots, so a model resumed from
     * it would count less than the meter holds (measured with a crash and async dispatch: 69
     * throttles where the fresh model took 10); a fresh model pays only within headroom's budget.
     *
     * @param level             per dimension, the most such a bucket holds at capture (negative
     *                          while the open calls' reservations exceed it); a dimension absent
     *                          starts at 0
     * @param proven            whether the meter took a call neither window of the quota would take
     * @param trusted           whether the model pays (after a withdrawal: once its wait was over)
     * @param withdrawals       how often a throttle withdrew the trust (from
     *                          {@value RefundingBucket#GIVE_UP_AFTER} on: for good)
     * @param withdrawnAtMillis the latest withdrawal, or {@link #NEVER}
     * @param retrustMillis     the wait after a withdrawal before the model pays again (0: the first wait)
     */
    public record BucketModelState(Map<QuotaDimension, Long> level, boolean proven, boolean trusted,
            int withdrawals, long withdrawnAtMillis, long retrustMillis) {

        public static final BucketModelState NONE = new BucketModelState(Map.of(), false, false, 0, NEVER, 0);

        public BucketModelState {
            if (withdrawals < 0 || retrustMillis < 0) {
                throw new IllegalArgumentException("withdrawals and retrustMillis must not be negative, were "
                        + withdrawals + " and " + retrustMillis);
            }
            level = level == null || level.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(level));
        }
    }

    /**
     * What {@link ClockMinuteWindow} learnt, and the current clock minute's account at capture.
     *
     * @param withdrawals       how often a fixed window's trust was withdrawn (from
     *                          {@value ClockMinuteWindow#GIVE_UP_AFTER} on: never again); 0 is nothing learnt
     * @param trusted           whether the meter behaves as a fixed clock-minute window
     * @param minuteStartMillis the start of the clock minute the account is of, or {@link #NEVER}
     * @param used              per dimension, what the pacer's calls charge that minute (empty if none)
     * @param probeMinuteStartMillis the minute the learner probes (or owes a probe from), or
     *                          {@link #NEVER}; 0 (an older state) reads as {@link #NEVER}: none owed
     * @param longCalls         whether the last call to settle took over half a minute
     * @param refusalMillis     the longest a refusal took to come back (0: not measured, the default)
     * @param withdrawnAtMillis the latest withdrawal of the trust, or {@link #NEVER}: calls admitted
     *                          before it are the same answer
     * @param quickRefused      whether the meter refused a call the trusted minute sent at its quick
     *                          pace (a sub-second limit): the turn is spent at twice the even rate
     *                          from then on; absent (an older state) reads as false
     * @param quickRefusedAtMillis when the refusal came back, or {@link #NEVER} (not refused, or not
     *                          known); 0 (an older state) reads as {@link #NEVER}. A successor resumed
     *                          within the sub-second horizon after it pauses as its predecessor would
     *                          have, and takes the refusals of its predecessor's calls sent around it
     *                          for the same answer
     * @param quickPace         the trusted minute's quick pace, a multiple of the even rate within
     *                          [{@value ClockMinuteWindow#QUICK_MULTIPLE}, {@value QuickPace#MOST_MULTIPLE}]
     *                          ({@link QuickPace}); 0 (an older state) reads as
     *                          {@value ClockMinuteWindow#QUICK_MULTIPLE}: nothing learnt
     */
    public record ClockMinuteState(int withdrawals, boolean trusted, long minuteStartMillis,
            Map<QuotaDimension, Long> used, long probeMinuteStartMillis, boolean longCalls, long refusalMillis,
            long withdrawnAtMillis, boolean quickRefused, long quickRefusedAtMillis, double quickPace) {

        public static final ClockMinuteState NONE = new ClockMinuteState(0, false, NEVER, Map.of());

        /** A learner owing no probe and with nothing measured of its calls. */
        public ClockMinuteState(int withdrawals, boolean trusted, long minuteStartMillis, Map<QuotaDimension, Long> used) {
            this(withdrawals, trusted, minuteStartMillis, used, NEVER, false, 0, NEVER, false, NEVER);
        }

        /** A learner whose quick pace was never refused. */
        public ClockMinuteState(int withdrawals, boolean trusted, long minuteStartMillis, Map<QuotaDimension, Long> used,
                long probeMinuteStartMillis, boolean longCalls, long refusalMillis, long withdrawnAtMillis) {
            this(withdrawals, trusted, minuteStartMillis, used, probeMinuteStartMillis, longCalls, refusalMillis,
                    withdrawnAtMillis, false, NEVER);
        }

        /** A learner whose quick pace was not raised. */
        public ClockMinuteState(int withdrawals, boolean trusted, long minuteStartMillis, Map<QuotaDimension, Long> used,
                long probeMinuteStartMillis, boolean longCalls, long refusalMillis, long withdrawnAtMillis,
                boolean quickRefused, long quickRefusedAtMillis) {
            this(withdrawals, trusted, minuteStartMillis, used, probeMinuteStartMillis, longCalls, refusalMillis,
                    withdrawnAtMillis, quickRefused, quickRefusedAtMillis, ClockMinuteWindow.QUICK_MULTIPLE);
        }

        public ClockMinuteState {
            if (withdrawals < 0) {
                throw new IllegalArgumentException("withdrawals must not be negative, was " + withdrawals);
            }
            if (minuteStartMillis != NEVER && Math.floorMod(minuteStartMillis, MINUTE_MILLIS) != 0) {
                throw new IllegalArgumentException("the account's minute starts on a minute, was " + minuteStartMillis);
            }
            if (probeMinuteStartMillis == 0) {
                probeMinuteStartMillis = NEVER; // an older state, written before the probe travelled: none owed
            }
            if (probeMinuteStartMillis != NEVER && Math.floorMod(probeMinuteStartMillis, MINUTE_MILLIS) != 0) {
                throw new IllegalArgumentException("the probe minute starts on a minute, was " + probeMinuteStartMillis);
            }
            if (refusalMillis < 0) {
                throw new IllegalArgumentException("refusalMillis must not be negative, was " + refusalMillis);
            }
            if (quickPace == 0) {
                quickPace = ClockMinuteWindow.QUICK_MULTIPLE; // an older state: nothing learnt
            }
            if (!(quickPace >= ClockMinuteWindow.QUICK_MULTIPLE && quickPace <= QuickPace.MOST_MULTIPLE)) {
                throw new IllegalArgumentException("quickPace must be within [" + ClockMinuteWindow.QUICK_MULTIPLE + ", "
                        + QuickPace.MOST_MULTIPLE + "], was " + quickPace);
            }
            if (quickRefusedAtMillis == 0 || !quickRefused) {
                quickRefusedAtMillis = NEVER; // an older state, or nothing refused: no time to pause from
            }
            used = used == null || used.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(used));
        }
    }

    public record InputScaleState(double mean, double spread, int samples) {

        /** Nothing learnt: the estimate as submitted. */
        public static final InputScaleState NONE = new InputScaleState(1.0, 0.0, 0);

        public InputScaleState {
            if (!(mean >= 0.0 && mean < Double.POSITIVE_INFINITY) || !(spread >= 0.0 && spread < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("mean and spread must be finite and not negative, were "
                        + mean + " and " + spread);
            }
            if (samples < 0 || samples > InputScale.WARM_UP) {
                throw new IllegalArgumentException("samples must be within [0, " + InputScale.WARM_UP + "], was "
                        + samples);
            }
        }
    }

    /** Most open calls a state carries; the rest stay charged at their reservation in the successor's window. */
    public static final int MAX_OPEN_CALLS = 256;

    /**
     * A call admitted and not yet settled when the state was exported: its request, what it was
     * expected to use, and per limited dimension the charge it holds in the window.
     *
     * <p>Why: a drainer that hands off leaves its calls in flight (calls in the drainer end after
     * the hand-off, by design). Their reservations are in the exported charges; without this the
     * successor holds each for 60 s though it settles seconds later. With it the successor reads
     * the request's status (the record the call wrote, the same read it polls its own dispatches
     * with) and books the settlement against that charge, as the predecessor would have. A call
     * whose status it never learns, or a state without this, stays charged until it leaves the
     * window: the safe side. A call whose admission has already left the window (a 61 s
     * generation) travels too: its settlement changes nothing in the window, but it gives the
     * refunding bucket's model its refund ({@link RefundingBucket}) and the learners their sample;
     * without it a hand-off every 270 s cost a long-generation drain 3.6% (token bucket,
     * {@code long-generations-split-tpm}: 843 s against 814 s with no hand-off, now 814 s).
     *
     * @param requestId        the request
     * @param lane             its lane, for the fair-share refund
     * @param tenant           its tenant
     * @param expected         what it was expected to use (the estimate; the learners compare
     *                         the settlement with it)
     * @param admittedAtMillis when it was admitted
     * @param normalizedCost   its reservation as a share of a minute of the most constrained dimension
     * @param charges          per limited dimension, the charge in the window
     */
    public record OpenCall(String requestId, Lane lane, String tenant, TokenUsage expected, long admittedAtMillis,
            double normalizedCost, Map<QuotaDimension, OpenCharge> charges) {

        public OpenCall {
            if (requestId == null || lane == null || tenant == null || expected == null) {
                throw new IllegalArgumentException("an open call needs its request, lane, tenant and expected usage");
            }
            if (charges == null || charges.isEmpty()) {
                throw new IllegalArgumentException("an open call holds a charge in at least one dimension");
            }
            if (!(normalizedCost >= 0.0 && normalizedCost < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("normalizedCost must be finite and not negative, was " + normalizedCost);
            }
            charges = Collections.unmodifiableMap(new EnumMap<>(charges));
        }
    }

    /**
     * One open call's charge in one dimension's window.
     *
     * @param atMillis when the ledger booked it (it is in the first bucket of
     *                 {@link DimensionState#charges} dated at or after it)
     * @param amount   the reservation charged
     * @param spaced   what the spacing charged for it (its expected cost)
     */
    public record OpenCharge(long atMillis, long amount, long spaced) {

        public OpenCharge {
            if (amount <= 0 || spaced < 0) {
                throw new IllegalArgumentException("an open charge is positive and its spacing not negative, were "
                        + amount + " and " + spaced);
            }
        }
    }

    /** A state without open calls (periodic statuses, older states). */
    public PacerState(long capturedAtMillis, int outputBurndown, Map<QuotaDimension, DimensionState> dimensions,
            double target, long lastThrottleAtMillis, long lastAdmissionAtMillis, long slowStartAtMillis,
            Map<String, Long> tenantNextSlotMicros, double outputShare, double forgiveness, double lift,
            HeadroomState headroomBudget, InputScaleState inputScale, BankState bank) {
        this(capturedAtMillis, outputBurndown, dimensions, target, lastThrottleAtMillis, lastAdmissionAtMillis,
                slowStartAtMillis, tenantNextSlotMicros, outputShare, forgiveness, lift, headroomBudget, inputScale,
                bank, List.of(), ClockMinuteState.NONE);
    }

    /** A state from a pacer that has learnt nothing about a clock-minute window. */
    public PacerState(long capturedAtMillis, int outputBurndown, Map<QuotaDimension, DimensionState> dimensions,
            double target, long lastThrottleAtMillis, long lastAdmissionAtMillis, long slowStartAtMillis,
            Map<String, Long> tenantNextSlotMicros, double outputShare, double forgiveness, double lift,
            HeadroomState headroomBudget, InputScaleState inputScale, BankState bank, List<OpenCall> openCalls) {
        this(capturedAtMillis, outputBurndown, dimensions, target, lastThrottleAtMillis, lastAdmissionAtMillis,
                slowStartAtMillis, tenantNextSlotMicros, outputShare, forgiveness, lift, headroomBudget, inputScale,
                bank, openCalls, ClockMinuteState.NONE);
    }

    /** This state with {@code calls} as its open calls (at most {@link #MAX_OPEN_CALLS}). */
    public PacerState withOpenCalls(List<OpenCall> calls) {
        return new PacerState(capturedAtMillis, outputBurndown, dimensions, target, lastThrottleAtMillis,
                lastAdmissionAtMillis, slowStartAtMillis, tenantNextSlotMicros, outputShare, forgiveness, lift,
                headroomBudget, inputScale, bank, calls, clockMinute);
    }

    /** A state from a pacer that has learnt nothing about output shares. */
    public PacerState(long capturedAtMillis, int outputBurndown, Map<QuotaDimension, DimensionState> dimensions,
            double target, long lastThrottleAtMillis, long lastAdmissionAtMillis, long slowStartAtMillis,
            Map<String, Long> tenantNextSlotMicros) {
        this(capturedAtMillis, outputBurndown, dimensions, target, lastThrottleAtMillis, lastAdmissionAtMillis,
                slowStartAtMillis, tenantNextSlotMicros, 1.0, 0.0, 0.0, HeadroomState.NONE, InputScaleState.NONE,
                BankState.NONE);
    }

    public PacerState {
        headroomBudget = headroomBudget == null ? HeadroomState.NONE : headroomBudget;
        inputScale = inputScale == null ? InputScaleState.NONE : inputScale;
        bank = bank == null ? BankState.NONE : bank;
        openCalls = openCalls == null ? List.of() : List.copyOf(openCalls);
        clockMinute = clockMinute == null ? ClockMinuteState.NONE : clockMinute;
        if (clockMinute.minuteStartMillis() != NEVER && clockMinute.minuteStartMillis() > capturedAtMillis) {
            throw new IllegalArgumentException("the clock minute at " + clockMinute.minuteStartMillis()
                    + " must not start after the capture at " + capturedAtMillis);
        }
        if (openCalls.size() > MAX_OPEN_CALLS) {
            throw new IllegalArgumentException("at most " + MAX_OPEN_CALLS + " open calls, was " + openCalls.size());
        }
        for (BudgetMinute minute : headroomBudget.minutes()) {
            if (minute.startMillis() > capturedAtMillis
                    || minute.startMillis() + MINUTE_MILLIS <= capturedAtMillis - Headroom.BUDGET_WINDOW_MILLIS) {
                throw new IllegalArgumentException("budget minute at " + minute.startMillis()
                        + " is not in the 10 minutes before the capture at " + capturedAtMillis);
            }
            if (minute.lastThrottleAtMillis() > capturedAtMillis) {
                throw new IllegalArgumentException("a budget throttle at " + minute.lastThrottleAtMillis()
                        + " must not be after the capture at " + capturedAtMillis);
            }
        }
        requireNeverOrBefore("headroom lastChangeAtMillis", headroomBudget.lastChangeAtMillis(), capturedAtMillis);
        if (!(forgiveness >= 0.0 && forgiveness <= 1.0) || !(lift >= 0.0 && lift <= 1.0)) {
            throw new IllegalArgumentException("forgiveness and lift must be shares in [0, 1], were "
                    + forgiveness + " and " + lift);
        }
        if (!(outputShare >= 0.0 && outputShare <= 1.0)) {
            throw new IllegalArgumentException("outputShare must be a share in [0, 1], was " + outputShare);
        }
        if (outputBurndown < 1) {
            throw new IllegalArgumentException("outputBurndown must be at least 1, was " + outputBurndown);
        }
        if (dimensions == null || dimensions.isEmpty()) {
            throw new IllegalArgumentException("at least one limited dimension is required");
        }
        Map<QuotaDimension, DimensionState> copy = new EnumMap<>(QuotaDimension.class);
        dimensions.forEach((dimension, state) -> {
            if (dimension == null || state == null) {
                throw new IllegalArgumentException("dimensions must not hold null keys or values");
            }
            for (WindowCharge charge : state.charges()) {
                boolean inWindow = charge.atMillis() <= capturedAtMillis
                        && charge.atMillis() > capturedAtMillis - DimensionBudget.WINDOW_MILLIS;
                if (!inWindow) {
                    throw new IllegalArgumentException(dimension + " charge at " + charge.atMillis()
                            + " is not in the 60 s before the capture at " + capturedAtMillis);
                }
            }
            copy.put(dimension, state);
        });
        dimensions = Collections.unmodifiableMap(copy);
        if (!(target > 0.0 && target <= 1.0)) {
            throw new IllegalArgumentException("target must be a share in (0, 1], was " + target);
        }
        if ((slowStartAtMillis == NEVER) != (lastAdmissionAtMillis == NEVER)) {
            throw new IllegalArgumentException("slowStartAtMillis and lastAdmissionAtMillis are set together");
        }
        requireNeverOrBefore("lastThrottleAtMillis", lastThrottleAtMillis, capturedAtMillis);
        requireNeverOrBefore("lastAdmissionAtMillis", lastAdmissionAtMillis, capturedAtMillis);
        requireNeverOrBefore("slowStartAtMillis", slowStartAtMillis, capturedAtMillis);
        if (tenantNextSlotMicros == null) {
            throw new IllegalArgumentException("tenantNextSlotMicros is required (may be empty)");
        }
        tenantNextSlotMicros.forEach((tenant, slot) -> {
            if (tenant == null || slot == null) {
                throw new IllegalArgumentException("tenantNextSlotMicros must not hold null keys or values");
            }
        });
        tenantNextSlotMicros = Collections.unmodifiableSortedMap(new TreeMap<>(tenantNextSlotMicros));
    }

    private static void requireNeverOrBefore(String name, long value, long bound) {
        if (value != NEVER && value > bound) {
            throw new IllegalArgumentException(name + " " + value + " must not be after " + bound);
        }
    }
}
