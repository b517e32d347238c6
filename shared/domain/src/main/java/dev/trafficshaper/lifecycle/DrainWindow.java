package dev.trafficshaper.lifecycle;

import dev.trafficshaper.model.ModelConfig;

/**
 * When a drainer stops admitting and hands off, and which calls it may still run itself.
 *
 * <p>Why: a drainer is one Lambda invocation with a hard end. Dispatching asynchronously, it only
 * has to finish its own bookkeeping before that end, so it hands off {@link #HANDOFF_MARGIN_MILLIS}
 * before it. Running calls itself ({@link DispatchMode#INLINE}), it must also let every call it
 * started end — Bedrock's answer, then the result, usage and status writes and the workflow's
 * resume — before the invocation is cut off, or the call would be lost mid-way and end, through
 * the sweeper, as a model timeout. So:
 *
 * <pre>
 *   callsEndBy = end − COMPLETION_MARGIN                    (30 s for the writes after the answer)
 *   a call starting at t fits  ⇔  t + timeout(deadline, t) ≤ callsEndBy
 *                                  (timeout = deadline − t, within [1 s, 10 min]: InvocationService.callTimeout)
 *   stopBy     = callsEndBy − longestCall                   longestCall = min(10 min, the model's maxDeadline)
 *   while the pacer spends each clock minute's turn at once (the drainer asks at each step):
 *   stopBy'    = turn − 2.5 s  if  turn − 2.5 s ≤ stopBy < turn + 10 s  and  turn − 2.5 s > the drainer's start
 * </pre>
 *
 * so every call admitted before the handoff fits, whatever its deadline. A Lambda's 15 minutes
 * with 10-minute calls leave 270 s of admitting per invocation, then the successor starts at once
 * (the lease is released and a successor woken at {@code stopBy}) while the predecessor waits only
 * for its own calls: seconds, usually, since a call lasts as long as Bedrock takes, not its
 * timeout. When the invocation is too short for that (less than {@link #MIN_ADMITTING_MILLIS} of
 * admitting would be left), the drainer keeps the asynchronous handoff time and each call that does
 * not fit goes the asynchronous way.
 *
 * The last line keeps a hand-off out of a quick turn's seconds ({@link #beforeTurn}).
 *
 * <p>Load states: <b>admitting</b> (before {@code stopBy}, or {@code stopBy'}: calls that fit run inline);
 * <b>finishing</b> (after the handoff: no new calls, the started ones end by {@code callsEndBy}).
 *
 * @param stopByMillis     the drainer stops admitting, releases its lease and wakes a successor
 * @param callsEndByMillis every call the drainer runs itself must have ended by then
 */
public record DrainWindow(long stopByMillis, long callsEndByMillis) {

    /** Kept back before the invocation's end for the last admissions, the status publish and the handoff. */
    public static final long HANDOFF_MARGIN_MILLIS = 30_000;

    /** Kept back after a call's timeout for the writes that follow the answer and the workflow's resume. */
    public static final long COMPLETION_MARGIN_MILLIS = 30_000;

    /** The least admitting time the inline rule must leave; below it the asynchronous handoff time stands. */
    public static final long MIN_ADMITTING_MILLIS = 60_000;

    /** How long before a clock minute's turn a hand-off moved away from a quick turn happens ({@link #beforeTurn}). */
    public static final long TURN_LEAD_MILLIS = 2_500;

    /** How long after a turn a quick turn's calls are still open, most of them: a hand-off there moves before it. */
    public static final long QUICK_TURN_MILLIS = 10_000;

    private static final long MINUTE_MILLIS = 60_000;

    /** Drains until {@code stopByMillis}; calls may end any time (a process with no time limit). */
    public static DrainWindow until(long stopByMillis) {
        return new DrainWindow(stopByMillis, Long.MAX_VALUE);
    }

    /**
     * The window of a drainer invocation that started at {@code nowMillis} and is cut off at
     * {@code endMillis}, for {@code model} and {@code mode} (see the class comment).
     */
    public static DrainWindow forInvocation(DispatchMode mode, ModelConfig model, long nowMillis, long endMillis) {
        long asyncStop = endMillis - HANDOFF_MARGIN_MILLIS;
        if (mode == DispatchMode.ASYNC) {
            return new DrainWindow(asyncStop, Long.MIN_VALUE);
        }
        long callsEndBy = endMillis - COMPLETION_MARGIN_MILLIS;
        long inlineStop = callsEndBy - longestCallMillis(model);
        long stopBy = inlineStop - nowMillis >= MIN_ADMITTING_MILLIS ? Math.min(inlineStop, asyncStop) : asyncStop;
        return new DrainWindow(stopBy, callsEndBy);
    }

    /**
     * Where a drainer whose pacer spends each trusted clock minute from its turn at once
     * ({@link dev.trafficshaper.pacing.Pacer#spendsTurnsQuickly}) stops admitting: {@code stopByMillis},
     * or {@link #TURN_LEAD_MILLIS} before the turn when it falls within {@link #QUICK_TURN_MILLIS}
     * after one (or within the lead before it), unless that is before the drainer started
     * ({@code startedAtMillis}).
     *
     * <p>Why: a hand-off carries at most {@link dev.trafficshaper.pacing.PacerState#MAX_OPEN_CALLS}
     * open calls. Just after a quick turn most of the minute's calls are open at once (fixed-window
     * {@code heavy-tenant}: 939 in the turn's first second), and the successor never learns the
     * others' settlements, so their refunds stay in its minute's account until the minute ends:
     * about a seventh of the quota there, enough for the drain's last calls to wait for the next
     * minute (seed 43: 552.9 s against 606.3 s, 1.01× against 1.10× the oracle). Just before the
     * turn the previous minute's calls have mostly ended, and the successor sends the turn's calls
     * itself. The lead keeps the hand-off out of the span in which a call may reach the meter after
     * the turn ({@code TurnGuard}, at most 2 s), which the successor's account does not inherit.
     */
    public static long beforeTurn(long stopByMillis, long startedAtMillis) {
        if (stopByMillis > Long.MAX_VALUE - MINUTE_MILLIS) {
            return stopByMillis; // no time limit
        }
        long turn = Math.floorDiv(stopByMillis + TURN_LEAD_MILLIS, MINUTE_MILLIS) * MINUTE_MILLIS;
        long moved = turn - TURN_LEAD_MILLIS;
        return stopByMillis < turn + QUICK_TURN_MILLIS && moved > startedAtMillis ? moved : stopByMillis;
    }

    /** The longest timeout a call of {@code model} can have: its longest deadline, at most {@link InvocationService#MAX_CALL}. */
    public static long longestCallMillis(ModelConfig model) {
        long maxDeadline = model.maxDeadlineSeconds() > Long.MAX_VALUE / 1_000 ? Long.MAX_VALUE
                : model.maxDeadlineSeconds() * 1_000;
        return Math.max(1_000, Math.min(InvocationService.MAX_CALL.toMillis(), maxDeadline));
    }

    /** Whether a call of a request due by {@code deadlineMillis}, starting at {@code nowMillis}, ends in time. */
    public boolean fits(long deadlineMillis, long nowMillis) {
        if (callsEndByMillis == Long.MAX_VALUE) {
            return true;
        }
        long timeout = InvocationService.callTimeout(deadlineMillis, nowMillis).toMillis();
        return nowMillis + timeout <= callsEndByMillis;
    }
}
