package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.TokenUsage;

/**
 * The share of its output allowance ({@code maxTokens}) a call really generates, learnt from
 * settlements, so the spacing can charge a call what it is expected to cost rather than what
 * Bedrock reserves for it.
 *
 * <p>Why: the window must hold a call's whole reservation until it settles, but the spacing only
 * has to spread calls evenly. Charged at the reservation, the spacing would space calls whose
 * answers use a tenth of {@code maxTokens} ten times too far apart and count on each refund to pull
 * the next slot back; refunds arrive late and in batches (a drainer learns of settlements by
 * polling), and a batch worth more than the lateness allowance is lost to its floor. Spaced at the
 * expected cost, the settlements' corrections sum to about zero, so a batch of them costs nothing.
 * The window is charged as before, so the bound it keeps does not depend on what is learnt: a share
 * learnt too low only lets the window, rather than the spacing, decide when the next call goes.
 *
 * <p>Only the output allowance is scaled: the input estimate is already what the call is expected
 * to read, and a request without an output allowance is spaced at its full cost.
 *
 * <pre>
 *   share      = 1 before any settlement
 *   share'     = share + (generated / maxTokens − share) / 16,   clamped to [1/64, 1]
 *   spaced(c)  = reservation(input, ceil(maxTokens × share))
 * </pre>
 *
 * A learning rate of 1/16 forgets a settlement's weight by half in about 11 settlements: quick
 * enough to follow a workload that changes within a minute at a few calls per second, slow enough
 * that one short answer does not open the spacing.
 */
final class OutputShare {

    static final double LEARNING_RATE = 1.0 / 16;
    static final double FLOOR = 1.0 / 64;

    private double share = 1.0;

    /** Learns from one settled call: {@code allowance} output tokens reserved, {@code generated} used. */
    void learn(long allowance, long generated) {
        if (allowance <= 0) {
            return;
        }
        double observed = Math.min(1.0, (double) generated / allowance);
        share = Math.max(FLOOR, share + (observed - share) * LEARNING_RATE);
    }

    /** The usage the spacing charges for a call expected to use {@code expected}. */
    TokenUsage spaced(TokenUsage expected) {
        if (share == 1.0 || expected.outputTokens() == 0) {
            return expected;
        }
        long output = (long) Math.ceil(expected.outputTokens() * share);
        return new TokenUsage(expected.inputTokens(), output, expected.cacheReadTokens(), expected.cacheWriteTokens());
    }

    double value() {
        return share;
    }

    /** Continues from a predecessor's share; out-of-range values (an older state's 0) mean nothing learnt. */
    void restore(double learnt) {
        share = learnt >= FLOOR && learnt <= 1.0 ? learnt : 1.0;
    }
}
