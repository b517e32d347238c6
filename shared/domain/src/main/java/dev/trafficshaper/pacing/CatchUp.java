package dev.trafficshaper.pacing;

/**
 * How much faster than the even rate the pacer may send while its 60 s window has room: the window
 * stays the bound, the spacing lets it fill at up to twice the even rate.
 *
 * <p>Why: even spacing at the target rate never spends more than a minute's target in any 60 s,
 * but it also never spends an empty window faster than that. At a burst's start, and whenever
 * charges leave a full window in a block, the window has room that even spacing spends only at the
 * target rate, while the oracle (and any meter that is a 60 s bound) would take it at once. A
 * minute's work that spacing would spread over 60 s goes in 30 s at twice the rate; the window then
 * holds the queue until those charges age out. So the drain ends up to half a window sooner, and
 * never spends more in any 60 s than before. Twice the rate, never a clump: Bedrock has a sub-second
 * limit that refuses bunched calls (see {@link BunchingGuard}), and twice the even rate at the
 * target is about 3% of a minute's quota a second. While the bank spends beside the window
 * ({@link BankedCapacity}, itself at the target rate) the spacing stays even, so twice the even rate
 * is the most ever sent.
 *
 * <pre>
 *   spacing rate = target × (1 + extra) × quota per minute      (the window unchanged)
 *   on a throttle the target answers (one per second at most):
 *                  extra' = extra / 2 (below 1/8: 0, the meter wants even spacing)
 *   extra starts at 1 with headroom on, 0 with it off (the strict bound, bit for bit)
 * </pre>
 *
 * A throttle the pacer did not expect says the meter is tighter than the window: other load takes
 * part of the quota, or a fixed clock-minute window keeps reservations that settle in the next
 * minute. Then quicker spending meets the refusal with more calls in flight, each of them an extra
 * call, so four such answers put the spacing back to even.
 */
final class CatchUp {

    static final double MAX_EXTRA = 1.0;
    static final double GIVE_UP_BELOW = 1.0 / 8;
    static final long EPISODE_MILLIS = 1_000;

    private final boolean enabled;
    private double extra;
    private int withdrawals;
    private long withdrawnAt = Long.MIN_VALUE;

    CatchUp(PacerSettings settings) {
        this.enabled = settings.headroom();
        this.extra = enabled ? MAX_EXTRA : 0.0;
    }

    /** What the spacing rate is multiplied by. */
    double factor() {
        return 1.0 + extra;
    }

    /** Bedrock throttled a call the pacer expected to pass: the quicker spending gives back half of what it had. */
    void throttled(long nowMillis) {
        if (extra == 0.0 || withdrawnAt != Long.MIN_VALUE && nowMillis - withdrawnAt < EPISODE_MILLIS) {
            return;
        }
        withdrawals++;
        withdrawnAt = nowMillis;
        extra = extraAfter(withdrawals);
    }

    int withdrawals() {
        return withdrawals;
    }

    /** Continues from a predecessor's withdrawals; a strict pacer ignores them. */
    void restore(int learntWithdrawals) {
        if (enabled) {
            withdrawals = Math.max(0, learntWithdrawals);
            extra = extraAfter(withdrawals);
        }
    }

    private static double extraAfter(int withdrawals) {
        double halved = MAX_EXTRA / Math.pow(2, Math.min(withdrawals, 30));
        return halved < GIVE_UP_BELOW ? 0.0 : halved;
    }
}
