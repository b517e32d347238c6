package dev.trafficshaper.delivery;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * When a failed webhook is tried again. A receiver that is down is usually down for minutes to
 * hours (a deploy, an outage), so the pauses grow geometrically and the attempts spread over
 * hours instead of seconds; a receiver that never answers costs {@code maxAttempts} short attempts
 * in all, not a Lambda that waits on it.
 *
 * <p>Formula: after failed attempt {@code n} (1-based) the next is due
 * {@code min(maxRetry, firstRetry × 2^(n-1))} later; after attempt {@code maxAttempts} none is,
 * and the webhook is dead-lettered. Defaults: 12 attempts, 30 s doubling to at most 2 h, i.e.
 * 30 s, 1, 2, 4, 8, 16, 32, 64 min, then 2 h three times: the last attempt 8 h 7 min 30 s after
 * the first. The same schedule drives the SQS visibility timeouts on AWS (whose redrive policy
 * moves a message to the dead-letter queue after {@code maxAttempts} receives) and the in-memory
 * queue of the local runtime.
 */
public record DeliverySchedule(int maxAttempts, long firstRetryMillis, long maxRetryMillis) {

    public static final int DEFAULT_MAX_ATTEMPTS = 12;
    public static final Duration DEFAULT_FIRST_RETRY = Duration.ofSeconds(30);
    public static final Duration DEFAULT_MAX_RETRY = Duration.ofHours(2);
    /** SQS's longest visibility timeout: no pause may be longer. */
    public static final Duration LONGEST_RETRY = Duration.ofHours(12);

    public DeliverySchedule {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be positive, was " + maxAttempts);
        }
        if (firstRetryMillis < 0 || maxRetryMillis < firstRetryMillis || maxRetryMillis > LONGEST_RETRY.toMillis()) {
            throw new IllegalArgumentException("need 0 <= firstRetry <= maxRetry <= 12 h, were " + firstRetryMillis
                    + " and " + maxRetryMillis + " ms");
        }
    }

    public static DeliverySchedule defaults() {
        return of(DEFAULT_MAX_ATTEMPTS, DEFAULT_FIRST_RETRY, DEFAULT_MAX_RETRY);
    }

    public static DeliverySchedule of(int maxAttempts, Duration firstRetry, Duration maxRetry) {
        return new DeliverySchedule(maxAttempts, firstRetry.toMillis(), maxRetry.toMillis());
    }

    /** The pause after failed attempt {@code attempt}; empty when it was the last one. */
    public OptionalLong retryAfter(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempts count from 1, was " + attempt);
        }
        if (attempt >= maxAttempts) {
            return OptionalLong.empty();
        }
        long pause = firstRetryMillis;
        for (int i = 1; i < attempt && pause < maxRetryMillis; i++) {
            pause *= 2;
        }
        return OptionalLong.of(Math.min(pause, maxRetryMillis));
    }

    /** Time from the first attempt to the last, if every attempt fails. */
    public long spanMillis() {
        long span = 0;
        for (int attempt = 1; attempt < maxAttempts; attempt++) {
            span += retryAfter(attempt).orElseThrow();
        }
        return span;
    }
}
