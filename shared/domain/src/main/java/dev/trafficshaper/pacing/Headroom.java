package dev.trafficshaper.pacing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * What the real meter gives beyond the strict bound, learnt by probing: how much of the open calls'
 * unused reservation it forgives, and how far above the target the pacer may spend.
 *
 * <p>Why: the strict bound counts every open call at its whole reservation ({@code input +
 * maxTokens × burndown}) until it settles, and spends only the target share of the quota. That is
 * safe whatever the meter, but a token bucket refunded at settlement does not hold an open call's
 * unused allowance against the calls after it once the bucket has room, and a meter is not
 * throttling at 95% of its quota. The SDK's adaptive retry finds such room by being throttled; the
 * pacer finds it the same way, within a budget of extra calls, and gives it back at once when the
 * meter says no.
 *
 * <p>Two quantities, both zero at the start (the strict bound, bit for bit):
 * <pre>
 *   forgiveness f ∈ [0, 1]: the window counts an open call at reservation − f × (reservation − expected)
 *   lift        l ∈ [0, ceiling − target]: the pacer spends (target + l) of the quota
 *
 *   every 10 s while backlogged, with no throttle in that time and room in the budget:
 *       f' = min(1, f + 1/8)           while the window is what holds the queue back and a step of f
 *                                      frees at least a step of l (1/8 × the open calls' excess ≥
 *                                      0.01 × the quota, in every dimension the window holds back)
 *       l' = min(ceiling − target, l + 0.01)   otherwise, or once f = 1
 *       while {@link RefundingBucket} pays for the queue: l only (forgiving the open calls' excess
 *       would let the window overdraw the bucket the model keeps)
 *       while the clock minute bounds the window ({@link ClockMinuteWindow#acting}): l first, as
 *       if the window did not hold the queue back (the minute's account, not the open calls, does)
 *   on a throttle while f > 0 or l > 0:  f' = f / 2, l' = l / 2 (below 1/64 of a step: 0),
 *       and the wait before the next step doubles (20 s, 40 s, … up to 10 min); it is back to
 *       10 s once the last 10 minutes hold no probe throttle; but
 *     with the strict window over the ceiling (only forgiveness had room for the call) and f > 0:
 *       f' = 0, l stays, the wait stays (it doubles from the second such refusal on), and from
 *       then on, for the rest of the run and a successor's, l steps before f (f steps again only
 *       once l is at the ceiling); refusals over the window of calls sent before that withdrawal
 *       are its answer: they count in the budget and change nothing else
 *     with the pacer spending its ceiling (the quota by default), not the same answer:
 *       l' = l − 0.01 (one step back), f' = f / 2, the wait doubles
 *   the same answer: up to {@value #SAME_ANSWER_THROTTLES} more throttles of calls sent before that
 *       back-off count in the budget and change nothing else; past them each backs off again (a
 *       bunch that large says the meter is tighter than one step explains)
 *   budget: throttles over the last 10 minutes stay under b of the calls admitted in them
 *           (b = {@link PacerSettings#headroomBudget}, 1% by default);
 *           when a throttle would break it, f and l fall to 0 until there is room again, and a
 *           throttle that finds no room is not the probe's (the target answers it), so at every
 *           probe throttle the 10 minutes up to it hold at most b of their calls as probe throttles;
 *           {@link RefundingBucket}'s probe throttles are booked in the same budget (f and l stay,
 *           unless one leaves it without room); the bank's ({@link BankedCapacity}) too, and f and l
 *           stay even then: the bank answers its own throttles
 * </pre>
 *
 * Why the same answer: a meter over its bound refuses the calls in flight together, so one step too
 * high comes back as two or three throttles within a second. Backing off on each halved the lift
 * twice and doubled the wait twice for one answer: sliding-window {@code at-quota} reached the
 * quota 40 s in, was refused twice at once, and ran at 0.96–0.97 of the quota for the next 480 s,
 * stepping forgiveness every 40 s (1.032× the oracle; 1.022× with the same answer, and
 * {@code steady-spike} 1.050× → 1.030×). Absorbing every throttle of the bunch let a quarter of
 * invisible load through unanswered (fixed-window {@code background-quarter} 37 → 109 throttles,
 * 1.012 calls per request); absorbing three, 1.059× → 1.111× there.
 *
 * Why forgiveness steps only where it frees a lift step's worth: with the open calls settled, a
 * window holding the queue back has nothing to forgive, and stepping f there left the target where
 * it was. Fixed-window {@code extreme-spike}, seed 45: the spike's first minute, bounded by the
 * 60 s window at 0.98 of the quota, waited from 35 s to the minute's turn while f stepped twice
 * over calls long settled; it took 3.966M of the meter's 4.0M (the oracle 3.997M), so the
 * backlog's last 7k tokens spilled into a sixth minute (304.3 s against the oracle's 249.1 s).
 * With the lift stepping there,
 * 3.999M and 275.6 s; over seeds 42–51 two fewer runs behind {@code sdk-adaptive}, 113 fewer
 * throttles, none slower by more than 0.01× the oracle.
 *
 * Why the clock minute's exception: in its probe minute the sliding window holds the queue back,
 * so forgiveness stepped for 80 s while the minute's account stopped at the target plus the lift
 * it had (fixed-window {@code extreme-spike}, seed 45: 3.92M of 4.0M tokens in that minute, 304.9 s
 * against the oracle's 249.1 s); stepping the lift there, 4.0M and 304.3 s, and over seeds 42–51
 * the fixed window's runs above 1.10× the oracle 43 → 33, the sliding window's unchanged.
 *
 * Why a refusal over the strict window is forgiveness's alone: the lift never takes the window
 * past the ceiling, so a call refused there went on the open calls' excess the pacer forgave,
 * which a window meter holds until each call settles. Halving both, as for any refusal, halved a
 * lift the meter had let through and kept stepping forgiveness first, which the meter refused
 * again: sliding-window {@code over-reservation} sat at 0.953–0.957 of the quota from 50 s to the
 * end (1.052× the oracle, 12 s behind {@code sdk-adaptive}); with forgiveness withdrawn alone,
 * 1.035×, ahead of it (docs/headroom.md, "What the seed-42 tables say"). Answering every later refusal over the
 * window as the withdrawal's, not only those of calls sent before it, and reading the window
 * without the refused call's own charge, cost sliding-window {@code claude-burndown-overreserved}
 * 0.015–0.025× in four seeds of ten; as it is, 1.056× → 1.050× at seed 42.
 *
 * Why a refusal at the ceiling steps back once: with the pacer at the quota itself, the meter's
 * edge is there and the estimates' noise alone finds it, while the step below went through.
 * Halving the lift there put sliding-window {@code at-quota} at 0.975 of the quota after each
 * refusal, climbing back a step per doubled wait (1.019× the oracle, 7.6 s behind
 * {@code sdk-adaptive}); one step back, 1.008× (1.010× beside the rule above). A bunch refused past its same answers halves as
 * before: a tighter meter (invisible load) answers that way, and stepping back once there slowed
 * the back-off (token-bucket {@code background-quarter} +0.7 s, kept).
 *
 * <p>The doubling wait is what a meter that forgives nothing (a window holding each reservation until
 * the call ends) calls for: every step up there ends in a throttle, and probing it every 10 s spent
 * the whole budget for nothing (69 throttles where 5 now find the same, `over-reservation` under
 * the sliding window), while a meter that forgives lets the steps through and never slows them.
 *
 * <p>Across a handoff the successor resumes f and l, and the budget too: the calls and probe
 * throttles of the last 10 minutes, the step's wait and the time of the last change
 * ({@link PacerState.HeadroomState}, counted so the successor never has more room than the
 * predecessor would have had). A fresh budget per successor would let a drainer handed off every
 * few minutes spend 1% of each successor's calls on top of its predecessors' throttles.
 *
 * <p>A throttle while nothing is being probed is not the probe's: it goes to {@link ThrottleFeedback}
 * as before. Load states: <b>strict</b> (f = l = 0: fresh, switched off, or out of budget);
 * <b>probing</b> (stepping up every 10 s); <b>settled</b> (holding what the meter allowed, stepping
 * again 10 s after each back-off).
 */
final class Headroom {

    static final long STEP_MILLIS = 10_000;
    static final long MAX_STEP_MILLIS = 600_000;
    static final double FORGIVENESS_STEP = 1.0 / 8;
    static final double LIFT_STEP = 0.01;
    static final long BUDGET_WINDOW_MILLIS = 600_000;
    /** The default budget: 1% of the calls ({@link PacerSettings#headroomBudget}). */
    static final double BUDGET_SHARE = 0.01;
    /** Throttles of calls sent before a back-off that it answers too, before each backs off again. */
    static final int SAME_ANSWER_THROTTLES = 2;
    private static final long BUCKET_MILLIS = 10_000;
    private static final int BUCKETS = (int) (BUDGET_WINDOW_MILLIS / BUCKET_MILLIS);

    private final boolean enabled;
    private final double budgetShare;
    private final double maxLift;
    private double forgiveness;
    private double lift;
    private long lastChangeAt = Long.MIN_VALUE;
    private long stepMillis = STEP_MILLIS;
    private final long[] admissions = new long[BUCKETS];
    private final long[] bucketStart = new long[BUCKETS];
    private final ArrayDeque<Long> throttles = new ArrayDeque<>();
    private long probeThrottles;
    private long lastBackOffAt = Long.MIN_VALUE;
    private int sameAnswers;
    /** The meter refused a call only forgiveness had room for: the lift steps first from then on. */
    private boolean forgivenessRefused;
    /** When forgiveness was last withdrawn: refusals of calls sent before it over the window are its answer. */
    private long forgivenessWithdrawnAt = Long.MIN_VALUE;

    /** Where a refused call stood in the pacer's own accounts, which decides what backs off. */
    enum Refusal {
        /** Below the ceiling: forgiveness and lift both halve. */
        BELOW_CEILING,
        /** With the pacer spending its ceiling: the meter's edge; the lift steps back once. */
        AT_CEILING,
        /** With the strict window over the ceiling: only forgiveness had room for it. */
        OVER_STRICT_WINDOW
    }

    Headroom(PacerSettings settings) {
        this.enabled = settings.headroom();
        this.budgetShare = settings.headroomBudget();
        this.maxLift = Math.max(0.0, settings.headroomCeiling() - settings.targetUtilization());
    }

    double forgiveness() {
        return forgiveness;
    }

    double lift() {
        return lift;
    }

    boolean probing() {
        return forgiveness > 0 || lift > 0;
    }

    /** Throttles that came while probing: the extra calls headroom cost. */
    long probeThrottles() {
        return probeThrottles;
    }

    void admitted(long nowMillis) {
        int index = bucketIndex(nowMillis);
        long start = Math.floorDiv(nowMillis, BUCKET_MILLIS) * BUCKET_MILLIS;
        if (bucketStart[index] != start) {
            bucketStart[index] = start;
            admissions[index] = 0;
        }
        admissions[index]++;
    }

    /**
     * Whether a step of forgiveness frees at least what a step of the lift would, in a dimension
     * whose window holds the queue back: the open calls' unused reservation against the quota.
     */
    static boolean forgivingFrees(long openExcess, long quotaPerMinute) {
        return FORGIVENESS_STEP * openExcess >= LIFT_STEP * quotaPerMinute;
    }

    /**
     * The queue waits: step up if the last change is a step old and the budget has room;
     * {@code windowBinds} when the window holds the queue back and forgiving would free room there
     * ({@link #forgivingFrees}).
     */
    void backlogged(boolean windowBinds, long nowMillis) {
        step(windowBinds, false, nowMillis);
    }

    /**
     * The queue waits on {@link RefundingBucket}'s level: step the lift alone, since forgiving the
     * open calls' excess would let the window overdraw the bucket the model keeps.
     */
    void backloggedOnBucket(long nowMillis) {
        step(false, true, nowMillis);
    }

    private void step(boolean windowBinds, boolean liftOnly, long nowMillis) {
        if (!enabled || (lastChangeAt != Long.MIN_VALUE && nowMillis - lastChangeAt < stepMillis)) {
            return;
        }
        if (lastChangeAt == Long.MIN_VALUE) {
            lastChangeAt = nowMillis; // the first backlog starts the clock: probing begins a step later
            return;
        }
        if (!budgetHasRoom(nowMillis)) {
            return;
        }
        if (throttles.isEmpty()) {
            stepMillis = STEP_MILLIS; // ten minutes without a probe throttle: step at the base pace again
        }
        boolean forgivenessFirst = !forgivenessRefused || lift >= maxLift - LIFT_STEP / 64;
        if (windowBinds && forgiveness < 1.0 && forgivenessFirst) {
            forgiveness = Math.min(1.0, forgiveness + FORGIVENESS_STEP);
        } else if (lift < maxLift) {
            lift = Math.min(maxLift, lift + LIFT_STEP);
        } else if (forgiveness < 1.0 && !liftOnly) {
            forgiveness = Math.min(1.0, forgiveness + FORGIVENESS_STEP);
        }
        lastChangeAt = nowMillis;
    }

    /** The same as {@link #throttled(long, long)} for a call sent after the last back-off. */
    boolean throttled(long nowMillis) {
        return throttled(Long.MAX_VALUE, nowMillis);
    }

    /**
     * Bedrock throttled a call admitted at {@code admittedAtMillis}. Returns whether the probe takes
     * the blame (the caller then leaves the target alone); a throttle while strict is the target's to
     * answer. Up to {@value #SAME_ANSWER_THROTTLES} throttles of calls sent before the last back-off
     * are that back-off's answer: they count in the budget and change nothing else.
     */
    boolean throttled(long admittedAtMillis, long nowMillis) {
        return throttled(admittedAtMillis, Refusal.BELOW_CEILING, nowMillis);
    }

    /**
     * The same, knowing where the call stood ({@link Refusal}): a call only forgiveness had room for
     * withdraws forgiveness alone (refusals over the window of calls sent before that withdrawal
     * count in the budget and change nothing else; any other refusal is answered as before); one
     * refused with the pacer at its ceiling steps the lift back once. A throttle taken without a
     * back-off that leaves the budget without room ends the probe, as one that backs off does.
     */
    boolean throttled(long admittedAtMillis, Refusal refusal, long nowMillis) {
        if (!probing()) {
            return false;
        }
        if (endProbeIfOutOfBudget(nowMillis)) {
            // Calls have left the budget's window since it last had room: the probe may not spend
            // more, so it stops, and the throttle is the target's to answer.
            return false;
        }
        probeThrottles++;
        throttles.addLast(nowMillis);
        boolean sameAnswer = admittedAtMillis <= lastBackOffAt;
        if (refusal == Refusal.OVER_STRICT_WINDOW
                && (forgiveness > 0 || admittedAtMillis <= forgivenessWithdrawnAt)) {
            if (forgiveness > 0) {
                withdrawForgiveness(nowMillis);
            }
            // a call sent on the forgiveness withdrawn: that answer, already acted on
            endProbeIfOutOfBudget(nowMillis);
            return true;
        }
        if (sameAnswer && sameAnswers < SAME_ANSWER_THROTTLES) {
            sameAnswers++;
            endProbeIfOutOfBudget(nowMillis); // sent before the last back-off: that answer, already acted on
            return true;
        }
        if (!sameAnswer) {
            sameAnswers = 0;
        }
        lastBackOffAt = nowMillis;
        stepMillis = Math.min(MAX_STEP_MILLIS, stepMillis * 2);
        forgiveness = halve(forgiveness, FORGIVENESS_STEP);
        lift = refusal == Refusal.AT_CEILING && !sameAnswer ? stepBack(lift) : halve(lift, LIFT_STEP);
        endProbeIfOutOfBudget(nowMillis);
        lastChangeAt = nowMillis;
        return true;
    }

    /** The meter refused what only forgiveness had room for: none from now, the lift kept. */
    private void withdrawForgiveness(long nowMillis) {
        if (forgivenessRefused) {
            stepMillis = Math.min(MAX_STEP_MILLIS, stepMillis * 2); // refused again after the lift topped out
        }
        forgivenessRefused = true;
        forgiveness = 0;
        forgivenessWithdrawnAt = nowMillis;
        lastChangeAt = nowMillis;
    }

    /**
     * With no room left in the budget, forgiveness and lift fall to the strict bound until there is
     * room again. Returns whether they did.
     */
    private boolean endProbeIfOutOfBudget(long nowMillis) {
        if (budgetHasRoom(nowMillis)) {
            return false;
        }
        forgiveness = 0;
        lift = 0;
        lastChangeAt = nowMillis;
        return true;
    }

    /**
     * Whether one more extra call fits the budget now: what {@link RefundingBucket} asks before it
     * pays. Always false while switched off.
     */
    boolean budgetAllows(long nowMillis) {
        return enabled && budgetHasRoom(nowMillis);
    }

    /**
     * Books a throttle another of headroom's learners took (the refunding bucket's probe) against
     * the budget, after {@link #budgetAllows} said there was room: it counts as the
     * probe's throttles do, in the budget and across a handoff; that learner counts it. It leaves
     * forgiveness, lift and the step alone, unless it leaves the budget without room: then, as
     * after a probe throttle that does, they fall to the strict bound until there is room again.
     */
    void bookThrottle(long nowMillis) {
        if (enabled) {
            throttles.addLast(nowMillis);
            endProbeIfOutOfBudget(nowMillis);
        }
    }

    /**
     * Books a throttle a learner answers itself against the budget: the bank's probe
     * ({@link BankedCapacity}, which withdraws its credit) or the clock minute's quick pace
     * ({@link ClockMinuteWindow}, which falls to twice the even rate). It counts there, so the probes
     * held to the budget leave room for it, but it leaves forgiveness, lift and the step alone even
     * when it fills the budget: such throttles say nothing of the room above the target, and zeroing
     * the lift on the bank's cost sliding-window {@code seed-burst} its lift for the rest of the run
     * (1.104× → 1.096× the oracle kept). A probe throttle that then finds no room still ends the
     * probe ({@link #throttled}).
     */
    void bookAnsweredThrottle(long nowMillis) {
        if (enabled) {
            throttles.addLast(nowMillis);
        }
    }

    void restore(double learntForgiveness, double learntLift) {
        if (!enabled) {
            return;
        }
        forgiveness = Math.max(0.0, Math.min(1.0, learntForgiveness));
        lift = Math.max(0.0, Math.min(maxLift, learntLift));
    }

    /** The budget and step at {@code capturedAtMillis}, for a successor (see {@link PacerState.HeadroomState}). */
    PacerState.HeadroomState export(long capturedAtMillis) {
        if (!enabled) {
            return PacerState.HeadroomState.NONE; // a strict pacer spends no budget, and restores none
        }
        long after = capturedAtMillis - BUDGET_WINDOW_MILLIS;
        TreeMap<Long, long[]> minutes = new TreeMap<>(); // start → {calls, throttles, last}
        for (int i = 0; i < BUCKETS; i++) {
            long minute = minuteOf(bucketStart[i]);
            if (admissions[i] > 0 && minute > after && bucketStart[i] <= capturedAtMillis) {
                minutes.computeIfAbsent(minute, m -> new long[] {0, 0, PacerState.NEVER})[0] += admissions[i];
            }
        }
        for (long at : throttles) {
            if (at > after && at <= capturedAtMillis) {
                long[] counts = minutes.computeIfAbsent(minuteOf(at), m -> new long[] {0, 0, PacerState.NEVER});
                counts[1]++;
                counts[2] = Math.max(counts[2], at);
            }
        }
        List<PacerState.BudgetMinute> list = new ArrayList<>(minutes.size());
        minutes.forEach((start, counts) -> list.add(new PacerState.BudgetMinute(start, counts[0], counts[1], counts[2])));
        long changed = lastChangeAt == Long.MIN_VALUE || lastChangeAt > capturedAtMillis ? PacerState.NEVER : lastChangeAt;
        PacerState.HeadroomState state = new PacerState.HeadroomState(stepMillis, changed, list);
        return forgivenessRefused ? state.withForgivenessRefused() : state;
    }

    /** The latest time headroom has booked anything at: a capture must not be before it. */
    long latestAt() {
        long latest = lastChangeAt;
        for (long start : bucketStart) {
            latest = Math.max(latest, start);
        }
        return throttles.isEmpty() ? latest : Math.max(latest, throttles.peekLast());
    }

    /**
     * Continues a predecessor's budget at {@code nowMillis}: its calls dated at the start of their
     * minute, its probe throttles at the latest of theirs, its step and last change as they were.
     */
    void restoreBudget(PacerState.HeadroomState state, long nowMillis) {
        if (!enabled) {
            return;
        }
        stepMillis = state.stepMillis();
        forgivenessRefused = state.forgivenessRefused();
        lastChangeAt = state.lastChangeAtMillis() == PacerState.NEVER ? Long.MIN_VALUE : state.lastChangeAtMillis();
        for (PacerState.BudgetMinute minute : state.minutes()) {
            // Minutes within one 10-minute window fall in distinct buckets of the ring.
            if (minute.calls() > 0 && minute.startMillis() > nowMillis - BUDGET_WINDOW_MILLIS) {
                int index = bucketIndex(minute.startMillis());
                bucketStart[index] = minute.startMillis();
                admissions[index] = minute.calls();
            }
            for (long i = 0; i < minute.throttles(); i++) {
                throttles.addLast(minute.lastThrottleAtMillis());
            }
        }
    }

    private static long minuteOf(long atMillis) {
        return Math.floorDiv(atMillis, PacerState.MINUTE_MILLIS) * PacerState.MINUTE_MILLIS;
    }

    private boolean budgetHasRoom(long nowMillis) {
        while (!throttles.isEmpty() && throttles.peekFirst() <= nowMillis - BUDGET_WINDOW_MILLIS) {
            throttles.pollFirst();
        }
        return throttles.size() + 1 <= budgetShare * callsInWindow(nowMillis);
    }

    private long callsInWindow(long nowMillis) {
        long calls = 0;
        long oldest = Math.floorDiv(nowMillis - BUDGET_WINDOW_MILLIS, BUCKET_MILLIS) * BUCKET_MILLIS;
        for (int i = 0; i < BUCKETS; i++) {
            if (bucketStart[i] > oldest) {
                calls += admissions[i];
            }
        }
        return calls;
    }

    private static int bucketIndex(long nowMillis) {
        return (int) Math.floorMod(Math.floorDiv(nowMillis, BUCKET_MILLIS), (long) BUCKETS);
    }

    /** One lift step back; nothing once less than a step is left. */
    private static double stepBack(double value) {
        double back = value - LIFT_STEP;
        return back < LIFT_STEP / 64 ? 0.0 : back;
    }

    private static double halve(double value, double step) {
        double half = value / 2;
        return half < step / 64 ? 0.0 : half;
    }
}
