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
 * <p><b>The ceiling</b> (with headroom on; strict mode recovers on the line above alone). A
 * throttle also says where the meter stopped: the pacer's own window held {@code fill} of the
 * quota when it came, so load the pacer cannot see took about the rest. Recovering on the slow line
 * alone spends most of each cycle well below that level (a quarter of the quota taken by another
 * application: a sawtooth between 0.61 and 0.77 of the quota, averaging 0.69, against 0.75
 * available). So the target also climbs fast back to just under the level the meter refused, and
 * the slow line alone probes above it, as CUBIC returns quickly to its last loss window:
 *
 * <pre>
 *   ceiling    = min(target(now), fill)                                  at the episode's throttle
 *   target(t)  = min(base, max(slow(t), min(ceiling × (1 − 0.005), lowered + 8 × minutes)))
 * </pre>
 *
 * The slow line is unchanged, so the next throttle comes when it did before (the same share of
 * extra calls), and the target is never below what strict recovery gives. A ceiling that is stale
 * because the other load left costs nothing the slow line would not; one that is too high (the other
 * load grew) is replaced at the next throttle. Measured with a quarter of the quota taken
 * ({@code background-quarter}): 1.14× the oracle's drain time to 1.07× under the sliding window,
 * 1.14× to 1.06× under the fixed window, with fewer throttles, climbing at 0.5 of the quota a
 * minute to 2% under the ceiling.
 *
 * <p>How fast, and how close: the back-off's window still holds the calls that met the refusal, so
 * the level the meter refused at is known the moment the episode is over, and every second of the
 * climb is spent below it. At 0.5 a minute the climb from 0.61 to 0.74 took 17 s, about a
 * quota-second lost per episode (0.065 of the quota on average for 17 s); at 8 a minute it takes
 * about a second, and it stops 1% under the ceiling instead of 2% (seed 42, strict
 * leniency: {@code background-quarter} 1.075× → 1.031× the oracle under the sliding window, 1.059× →
 * 1.041× under the fixed window, 1.008× → 1.003× under the token bucket, 46 / 37 / 26 throttles →
 * 40 / 59 / 34 on 9,065 requests; sliding-window {@code spiky} 1.027× → 1.023×, no other run
 * changed). Faster than 8 a minute moved no run by more than 0.002×; the 2% margin with the fast climb
 * left those runs 0.1–0.8% slower than the 1%. Half a percent, once headroom answered a refusal at
 * its ceiling with one lift step back: the same seed's {@code background-quarter} under the token
 * bucket 564.1 s → 563.2 s (the SDK's time), over seeds 42–51 no run moved by more than 0.01× the
 * oracle and one fewer behind {@code sdk-adaptive}; the target sat at 0.7448 against refusals at
 * 0.751–0.755 (seed 43, sliding), and the sliding window's echo of its first minute turns 1% of
 * rate into a late block (docs/roadmap.md).
 *
 * <p>A successor continues from the target its predecessor had at the handoff and recovers from
 * there at its own rate: the target line is the same, and a throttle is not forgotten. With a
 * ceiling, the successor also gets the slow line's value and the ceiling, so both lines continue.
 */
final class ThrottleFeedback {

    static final long EPISODE_MILLIS = 1_000;

    /** How far under the level the meter refused the fast climb stops. */
    static final double CEILING_MARGIN = 0.005;

    /** The fast climb back to the ceiling, in target share per minute (0.6 → 0.74 in about 1 s). */
    static final double FAST_RECOVERY_PER_MINUTE = 8.0;

    private final double base;
    private final double backoff;
    private final double minimum;
    private final double recoveryPerMinute;
    private final boolean remembersCeiling;
    /** The slow line's value at {@link #loweredAt}. */
    private double loweredTo;
    /** The fast climb's value at {@link #loweredAt}: {@link #loweredTo}, or above it after a handoff. */
    private double climbFrom;
    private double ceiling;
    private long loweredAt = Long.MIN_VALUE;
    private long episodeAt = Long.MIN_VALUE;
    private long throttles;

    ThrottleFeedback(PacerSettings settings) {
        this.base = settings.targetUtilization();
        this.backoff = settings.throttleBackoff();
        this.minimum = settings.minimumTarget();
        this.recoveryPerMinute = settings.recoveryPerMinute();
        this.remembersCeiling = settings.headroom();
        this.loweredTo = base;
    }

    double target(long nowMillis) {
        if (loweredAt == Long.MIN_VALUE) {
            return base;
        }
        return Math.min(base, Math.max(slowLine(nowMillis), climb(nowMillis)));
    }

    /** The strict recovery: from the lowered target at the slow rate, up to the base. */
    double slowLine(long nowMillis) {
        if (loweredAt == Long.MIN_VALUE) {
            return base;
        }
        return Math.min(base, loweredTo + recoveryPerMinute * minutesSince(nowMillis));
    }

    private double climb(long nowMillis) {
        if (ceiling == 0.0) {
            return 0.0;
        }
        return Math.min(ceiling * (1 - CEILING_MARGIN), climbFrom + FAST_RECOVERY_PER_MINUTE * minutesSince(nowMillis));
    }

    private double minutesSince(long nowMillis) {
        return Math.max(0, nowMillis - loweredAt) / 60_000.0;
    }

    /**
     * A throttle the pacer did not expect.
     *
     * @param fill the pacer's own window charges when it came, as a share of the quota (0: unknown)
     */
    void onThrottle(long nowMillis, double fill) {
        throttles++;
        if (episodeAt != Long.MIN_VALUE && nowMillis - episodeAt < EPISODE_MILLIS) {
            return;
        }
        double before = target(nowMillis);
        if (remembersCeiling && fill > 0) {
            ceiling = Math.min(before, fill);
        }
        loweredTo = Math.max(minimum, before * backoff);
        climbFrom = loweredTo;
        loweredAt = nowMillis;
        episodeAt = nowMillis;
    }

    /** The level the meter last refused at, as a share of the quota; 0 when none is known. */
    double ceiling() {
        return ceiling;
    }

    /** Start of the latest throttle episode, {@link Long#MIN_VALUE} if none. */
    long episodeAt() {
        return episodeAt;
    }

    /**
     * Continues from a predecessor's target and slow line at {@code atMillis}, the ceiling it
     * learnt (0: none) and its latest episode.
     */
    void restore(double target, double slowLine, double learntCeiling, long atMillis, long lastEpisodeAt) {
        if (target < base) {
            climbFrom = target;
            loweredTo = remembersCeiling && learntCeiling > 0 && slowLine > 0 ? Math.min(target, slowLine) : target;
            loweredAt = atMillis;
        }
        if (remembersCeiling && learntCeiling > 0) {
            ceiling = Math.min(1.0, learntCeiling);
        }
        episodeAt = lastEpisodeAt;
    }

    long throttles() {
        return throttles;
    }
}
