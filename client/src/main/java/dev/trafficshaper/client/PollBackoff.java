package dev.trafficshaper.client;

import java.time.Duration;
import java.util.Objects;

/**
 * When an await asks again after a pending answer.
 *
 * <p>Why: every status read costs the caller a request against the API's read throttle and the
 * operator a Lambda call, and on a shared stage a poll taken too early is a submission refused.
 * The API's {@code Retry-After} is the best information there is (the request's ETA while it is
 * queued, its running time while Bedrock answers), so it is the floor of every wait: an await
 * never asks sooner than it says. But a {@code Retry-After} of one second, the header's smallest
 * value, or none at all, only says "not yet": an await that keeps hearing it without the request
 * moving on (same state) is waiting on something the API cannot predict, and asking every second
 * buys nothing, so the wait doubles until it reaches a cap. When the final status is pushed (a
 * webhook or the outcome event, {@link OutcomeInbox}) polling is only the fallback for a push
 * that got lost, and it backs off from a long interval whatever the header says.
 *
 * <pre>
 *   hint   = Retry-After, or pollInterval without one
 *   polling:  k-th uninformative answer in a row in the same state (Retry-After absent or ≤ 1 s)
 *               grown = min(maxBackoff, max(hint, 100 ms) × 2^(k−1));  an informative answer: k = 0, grown = 0
 *   fallback: n-th pending answer of the await
 *               grown = min(maxPollInterval, fallbackInterval × 2^(n−1))
 *   delay  = min(maxPollInterval, hint + (max(hint, grown) − hint) × (1 − jitter × u)),  u uniform in [0, 1)
 * </pre>
 *
 * <p>Only the part of the wait beyond the hint is jittered, so a crowd of awaits that started
 * together spreads out while none undercuts {@code Retry-After}. Load states: following the API
 * (an informative header: the delay is the header), backing off (the k-th "not yet": 1, 2, 4, …
 * up to {@code maxBackoff}), and fallback (a push configured: at the ETA, then 30 s, 60 s, … up to
 * {@code maxPollInterval}). The caller's {@code maxPollInterval} bounds everything.
 */
final class PollBackoff {

    /** A {@code Retry-After: 0} must not turn polling into a busy loop. */
    static final Duration MIN_DELAY = Duration.ofMillis(100);
    /** The header counts whole seconds: one second is the least it can say, and says only "not yet". */
    static final Duration UNINFORMATIVE = Duration.ofSeconds(1);
    /** The largest share of the backed-off part of a wait that jitter takes away. */
    static final double JITTER = 0.2;

    /** Where an await's backoff stands: the state it last saw and how many pending answers in a row counted. */
    record Streak(String state, int count) {
        static final Streak NONE = new Streak(null, 0);
    }

    /** The wait before the next poll, and the streak that follows from the answer. */
    record Next(Duration delay, Streak streak) {
    }

    private final Duration pollInterval;
    private final Duration maxBackoff;
    private final Duration maxPollInterval;
    private final Duration fallbackInterval;

    private PollBackoff(Duration pollInterval, Duration maxBackoff, Duration maxPollInterval,
                        Duration fallbackInterval) {
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
        this.maxPollInterval = Objects.requireNonNull(maxPollInterval, "maxPollInterval");
        this.fallbackInterval = fallbackInterval;
    }

    /** Polling is how the await learns the outcome. */
    static PollBackoff polling(Duration pollInterval, Duration maxBackoff, Duration maxPollInterval) {
        return new PollBackoff(pollInterval, maxBackoff, maxPollInterval, null);
    }

    /** The outcome is pushed; polling only covers a push that never comes. */
    static PollBackoff fallback(Duration pollInterval, Duration fallbackInterval, Duration maxPollInterval) {
        return new PollBackoff(pollInterval, maxPollInterval, maxPollInterval,
                Objects.requireNonNull(fallbackInterval, "fallbackInterval"));
    }

    boolean isFallback() {
        return fallbackInterval != null;
    }

    /**
     * The wait after a pending answer in {@code state} with {@code retryAfter} (null: no header),
     * given the streak so far and a uniform random {@code u} in [0, 1).
     */
    Next afterPending(Streak streak, String state, Duration retryAfter, double u) {
        Duration hint = retryAfter != null ? retryAfter : pollInterval;
        Streak next;
        Duration grown;
        if (isFallback()) {
            next = new Streak(state, streak.count() + 1);
            grown = doubled(fallbackInterval, next.count(), maxPollInterval);
        } else if (retryAfter != null && retryAfter.compareTo(UNINFORMATIVE) > 0) {
            next = new Streak(state, 0);
            grown = Duration.ZERO;
        } else {
            next = new Streak(state, Objects.equals(state, streak.state()) ? streak.count() + 1 : 1);
            grown = doubled(max(hint, MIN_DELAY), next.count(), maxBackoff);
        }
        Duration extension = max(hint, grown).minus(hint);
        long jitteredMillis = Math.round(extension.toMillis() * (1 - JITTER * clampUnit(u)));
        return new Next(capped(hint.plusMillis(jitteredMillis)), next);
    }

    /** The wait after a poll that could not be read: {@code Retry-After} when given, else doubling from pollInterval. */
    Duration afterFailure(int failures, Duration retryAfter) {
        return capped(retryAfter != null ? retryAfter : doubled(pollInterval, failures, Duration.ofDays(1)));
    }

    /** The wait after a {@code 404} that may be a status not yet visible. */
    Duration afterNotFound() {
        return capped(pollInterval);
    }

    private Duration capped(Duration delay) {
        Duration floor = min(MIN_DELAY, maxPollInterval);
        return delay.compareTo(floor) < 0 ? floor : min(delay, maxPollInterval);
    }

    /** {@code base × 2^(count − 1)}, at most {@code cap}, without overflow. */
    private static Duration doubled(Duration base, int count, Duration cap) {
        Duration value = base;
        for (int i = 1; i < count && value.compareTo(cap) < 0; i++) {
            value = value.multipliedBy(2);
        }
        return min(value, cap);
    }

    private static double clampUnit(double u) {
        return u < 0 ? 0 : Math.min(u, 1);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
