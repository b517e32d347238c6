package dev.trafficshaper.pacing;

import java.util.Arrays;

/**
 * How close before a clock minute's turn a call may be admitted and still reach the meter after
 * it, learnt from how long the pacer's calls took to get there.
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
 *   lag of a call  = the latest it can have reached the meter − its admission
 *                    (a call made in the drainer: its answer's arrival less the latency Bedrock
 *                     reports; one dispatched elsewhere: its start at the processor)
 *   guard          = min({@value #DEFAULT_MILLIS} ms, longest lag of the latest {@value #LAGS} calls
 *                    + {@value #MARGIN_MILLIS} ms), {@value #DEFAULT_MILLIS} ms until a lag is known
 *   near the turn  ⇔  (t mod 60 s) ≥ 60 s − guard
 * </pre>
 *
 * The margin covers what the lags do not see (clocks apart, a request's own transit to Bedrock after
 * the processor started it), as {@link RefundingBucket}'s span does. A successor starts at the
 * default and learns again from its own calls: the guard errs long, never short.
 */
final class TurnGuard {

    static final long DEFAULT_MILLIS = 2_000;
    static final long MARGIN_MILLIS = 250;
    static final int LAGS = 64;
    private static final long MINUTE_MILLIS = 60_000;

    /** The latest calls' lags, a ring; -1 where none yet. */
    private final long[] lags = new long[LAGS];
    private int next;
    private long millis = DEFAULT_MILLIS;

    TurnGuard() {
        Arrays.fill(lags, -1);
    }

    /** A call admitted at {@code admittedAtMillis} had reached the meter by {@code reachedByMillis}. */
    void reached(long admittedAtMillis, long reachedByMillis) {
        lags[next] = Math.max(0, reachedByMillis - admittedAtMillis);
        next = (next + 1) % LAGS;
        long longest = 0;
        for (long lag : lags) {
            longest = Math.max(longest, lag);
        }
        millis = Math.min(DEFAULT_MILLIS, longest + MARGIN_MILLIS);
    }

    /** How long before a turn a call may still reach the meter after it. */
    long millis() {
        return millis;
    }

    /** Whether a call admitted at {@code atMillis} may reach the meter in the next clock minute. */
    boolean nearTurn(long atMillis) {
        return Math.floorMod(atMillis, MINUTE_MILLIS) >= MINUTE_MILLIS - millis;
    }
}
