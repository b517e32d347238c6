package dev.trafficshaper.pacing;

/**
 * The pacer's current target share of the quota, lowered when Bedrock throttles a request the
 * pacer believed was within budget, and recovered gradually afterwards.
 *
 * <p>Why: a throttle the pacer did not predict means someone else shares the quota (another
 * application, a console user) or the provider meters more strictly than assumed. Multiplicative
 * decrease gets out of the way fast; linear recovery probes back up slowly, as TCP congestion
 * control does.
 *
 * <pre>
 *   on throttle:  target = max(minimum, target(now) × backoff)      at most once per episode
 *   afterwards:   target(t) = min(base, target + recoveryPerMinute × minutes since the throttle)
 * </pre>
 *
 * A burst of throttles from one overload (several in-flight requests failing within one second)
 * counts as one episode, so one event does not collapse the target.
 *
 * <p>A successor continues from the target its predecessor had at the handoff and recovers from
 * there at its own rate: the target line is the same, and a throttle is not forgotten.
 */
final class ThrottleFeedback {

    static final long EPISODE_MILLIS = 1_000;

    private final double base;
    private final double backoff;
    private final double minimum;
    private final double recoveryPerMinute;
    private double loweredTo;
    private long loweredAt = Long.MIN_VALUE;
    private long episodeAt = Long.MIN_VALUE;
    private long throttles;

    ThrottleFeedback(PacerSettings settings) {
        this.base = settings.targetUtilization();
        this.backoff = settings.throttleBackoff();
        this.minimum = settings.minimumTarget();
        this.recoveryPerMinute = settings.recoveryPerMinute();
        this.loweredTo = base;
    }

    double target(long nowMillis) {
        if (loweredAt == Long.MIN_VALUE) {
            return base;
        }
        double recovered = loweredTo + recoveryPerMinute * Math.max(0, nowMillis - loweredAt) / 60_000.0;
        return Math.min(base, recovered);
    }

    void onThrottle(long nowMillis) {
        throttles++;
        if (episodeAt != Long.MIN_VALUE && nowMillis - episodeAt < EPISODE_MILLIS) {
            return;
        }
        loweredTo = Math.max(minimum, target(nowMillis) * backoff);
        loweredAt = nowMillis;
        episodeAt = nowMillis;
    }

    /** Start of the latest throttle episode, {@link Long#MIN_VALUE} if none. */
    long episodeAt() {
        return episodeAt;
    }

    /** Continues from a predecessor's target at {@code atMillis} and its latest episode. */
    void restore(double target, long atMillis, long lastEpisodeAt) {
        if (target < base) {
            loweredTo = target;
            loweredAt = atMillis;
        }
        episodeAt = lastEpisodeAt;
    }

    long throttles() {
        return throttles;
    }
}
