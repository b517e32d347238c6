package dev.trafficshaper.loadtest.harness;

import java.time.Duration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.retries.StandardRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;

/**
 * The SDK retry strategies the direct arms use, built from the SDK's own classes. On a scaled
 * local clock every backoff is divided by the scale, because the SDK sleeps on the wall clock;
 * the adaptive mode's client-side rate limiter measures the wall too, so on a scaled clock it
 * reacts {@code scale} times more slowly than it would at full speed (docs/loadtest.md).
 */
public final class RetryPolicies {

    /** The seed experiment's policy: 4 attempts in all. */
    public static final int SEED_ATTEMPTS = 4;
    /** The SDK's defaults for its standard and adaptive modes (base delay, throttling base delay, cap). */
    private static final Duration SDK_BASE_DELAY = Duration.ofMillis(100);
    private static final Duration SDK_THROTTLED_BASE_DELAY = Duration.ofSeconds(1);
    private static final Duration SDK_MAX_BACKOFF = Duration.ofSeconds(20);

    private RetryPolicies() {
    }

    public static RetryStrategy forArm(ArmKind arm, double timeScale) {
        return switch (arm) {
            case DIRECT -> AwsRetryStrategy.doNotRetry();
            case RETRY_JITTER -> seed(timeScale);
            case SDK_ADAPTIVE -> adaptive(timeScale);
            case SHAPER -> throw new IllegalArgumentException("the shaper arm does not call Bedrock itself");
        };
    }

    /**
     * Up to 4 attempts, on throttling only, with full-jitter backoff: attempt n waits uniform(0,
     * min(30 s, 1 s × 2^(n−2))), so ceilings of 1, 2 and 4 s. The SDK's retry circuit breaker is off:
     * the published policy has none, and it would cap the retries of one client.
     */
    public static RetryStrategy seed(double timeScale) {
        BackoffStrategy fullJitter = BackoffStrategy.exponentialDelay(scaled(Duration.ofSeconds(1), timeScale),
                scaled(Duration.ofSeconds(30), timeScale));
        return StandardRetryStrategy.builder()
                .maxAttempts(SEED_ATTEMPTS)
                .retryOnExceptionInstanceOf(ThrottlingException.class)
                .backoffStrategy(fullJitter)
                .throttlingBackoffStrategy(fullJitter)
                .circuitBreakerEnabled(false)
                .build();
    }

    /** The SDK's adaptive mode as a client configured with {@code retryMode(ADAPTIVE_V2)} gets it. */
    public static RetryStrategy adaptive(double timeScale) {
        RetryStrategy sdk = AwsRetryStrategy.forRetryMode(RetryMode.ADAPTIVE_V2);
        if (timeScale == 1.0) {
            return sdk;
        }
        return sdk.toBuilder()
                .backoffStrategy(BackoffStrategy.exponentialDelay(scaled(SDK_BASE_DELAY, timeScale),
                        scaled(SDK_MAX_BACKOFF, timeScale)))
                .throttlingBackoffStrategy(BackoffStrategy.exponentialDelay(
                        scaled(SDK_THROTTLED_BASE_DELAY, timeScale), scaled(SDK_MAX_BACKOFF, timeScale)))
                .build();
    }

    private static Duration scaled(Duration duration, double timeScale) {
        return Duration.ofMillis(Math.max(1, Math.round(duration.toMillis() / timeScale)));
    }
}
