package dev.trafficshaper.pacing;

import java.util.Arrays;

/**
 * How close before a clock minute's turn a call may be sent and still reach the meter after it,
 * learnt from how long the pacer's calls took to get there; one per way a call goes.
 *
 * <p>Why: {@link ClockMinuteWindow} counts a call admitted just before a turn in the next minute
 * too, at its whole reservation until it ends, because a call reaches the meter a dispatch later
 * than the pacer admitted it and a fixed window charges it to the minute it arrives in. A fixed
 * span of 2 s covers a cold asynchronous dispatch; but where calls are made in the drainer and reach
 * Bedrock within milliseconds it charged each trusted minute the reservations of the calls its
 * predecessor sent in its last 2 s, which a long generation holds almost to the next turn: in
 * fixed-window {@code long-generations-split-tpm} (16,000 tokens reserved for 61 s, refunds
 * re-spent late in each minute) that was two to three calls of 25 a minute (seed 42: 1.150× the
 * oracle; 1.110× with no guard at all, which would be unsafe under a slow dispatch). So the span is
 * what the calls showed:
 *
 * <pre>
 *   dispatched way:  lag = its start at the processor − its admission (learnt at its settlement;
 *                          {@link RefundingBucket}'s span, which its model's charges on their way
 *                          use too, at most 5 s there)
 *   inline way:      lag = its answer's arrival less the latency Bedrock reports − its start in
 *                          the drainer (learnt at its answer)
 *   guard            = min({@value #DEFAULT_MILLIS} ms, longest lag of the way's latest
 *                      {@value #LAGS} calls + {@value #MARGIN_MILLIS} ms),
 *                      {@value #DEFAULT_MILLIS} ms until a lag is known
 *   near the turn    ⇔  (t mod 60 s) ≥ 60 s − guard
 *   a call is booked near the turn at its admission by the dispatched way's guard (its way is not
 *   known yet), and unbooked when the drainer starts it itself before the inline way's guard
 * </pre>
 *
 * Why two ways: a drainer that makes its calls itself sends one the asynchronous way when no thread
 * is free or its deadline outlasts the invocation, and a cold processor reaches Bedrock seconds
 * later; a guard learnt from the drainer's own calls alone would let such a call land in the next
 * minute uncounted. The margin covers what the lags do not see (clocks apart, a request's own
 * transit to Bedrock after the processor started it), as {@link RefundingBucket}'s span does. A
 * successor starts at the default and learns again from its own calls.
 */
final class TurnGuard {

    static final long DEFAULT_MILLIS = 2_000;
    static final long MARGIN_MILLIS = 250;
    static final int LAGS = 64;
    private static final long MINUTE_MILLIS = 60_000;

    /** The latest calls' lags, a ring; -1 where none yet. */
    private final long[] lags = new long[LAGS];
    private int next;
    /** The span until a lag is known, and the most it is. */
    private final long mostMillis;
    private long millis;

    TurnGuard() {
        this(DEFAULT_MILLIS);
    }

    /** A span of at most {@code mostMillis} ({@link RefundingBucket}'s, a charge's way to the meter, is 5 s). */
    TurnGuard(long mostMillis) {
        this.mostMillis = mostMillis;
        this.millis = mostMillis;
        Arrays.fill(lags, -1);
    }

    /** A call sent at {@code sentAtMillis} (admitted, or started) had reached the meter by {@code reachedByMillis}. */
    void reached(long sentAtMillis, long reachedByMillis) {
        lags[next] = Math.max(0, reachedByMillis - sentAtMillis);
        next = (next + 1) % LAGS;
        long longest = 0;
        for (long lag : lags) {
            longest = Math.max(longest, lag);
        }
        millis = Math.min(mostMillis, longest + MARGIN_MILLIS);
    }

    /** How long before a turn a call may still reach the meter after it. */
    long millis() {
        return millis;
    }

    /** Whether a call sent at {@code atMillis} may reach the meter in the next clock minute. */
    boolean nearTurn(long atMillis) {
        return nearTurn(atMillis, millis);
    }

    /** Whether a call sent at {@code atMillis} that may take {@code spanMillis} to arrive may reach the next minute. */
    static boolean nearTurn(long atMillis, long spanMillis) {
        return Math.floorMod(atMillis, MINUTE_MILLIS) >= MINUTE_MILLIS - spanMillis;
    }
}
