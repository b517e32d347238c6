package dev.trafficshaper.loadtest.scenario;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * How Lambda runs one of the shaper's functions when it is invoked asynchronously (the drainer's
 * dispatch to the Bedrock Processor, a wake of the Queue Processor).
 *
 * <p>An accepted {@code Invoke} reaches a handler after the async queue's delay, log-normal with
 * the given median and 99th percentile (most events start within tens of milliseconds, a few take
 * far longer). It then runs on a warm instance if one is free; otherwise a new instance starts
 * first (the cold start: SnapStart's restore and the first call's warm-up), as long as the
 * function has fewer than {@code concurrency} instances; beyond that the event waits in Lambda's
 * queue until an instance frees. Instances stay warm for {@code warmSeconds} after their last
 * event.
 *
 * @param medianMillis    median delay from {@code Invoke} to the handler on a warm instance
 * @param p99Millis       its 99th percentile
 * @param coldStartMillis added when a new instance must start
 * @param warmSeconds     how long an idle instance is kept
 * @param concurrency     most instances at once (the account's unreserved pool by default)
 */
public record LambdaModel(long medianMillis, long p99Millis, long coldStartMillis, long warmSeconds,
                          int concurrency) {

    /**
     * A deployed function on a quiet account: 40 ms median, 400 ms p99, 600 ms cold start (SnapStart
     * restore of a Java function plus its first SDK call), instances kept 10 minutes, the account
     * default of 1,000 concurrent executions.
     */
    public static final LambdaModel DEFAULT = new LambdaModel(40, 400, 600, 600, 1_000);

    /** A slow day: 150 ms median, 2 s p99, 2 s cold starts. */
    public static final LambdaModel PESSIMISTIC = new LambdaModel(150, 2_000, 2_000, 600, 1_000);

    /** The z-score of the 99th percentile of a standard normal distribution. */
    private static final double Z99 = 2.326348;

    public LambdaModel {
        if (medianMillis < 0 || p99Millis < medianMillis || coldStartMillis < 0 || warmSeconds < 1
                || concurrency < 1) {
            throw new IllegalArgumentException("lambda model: need 0 <= medianMillis <= p99Millis, coldStartMillis >= 0,"
                    + " warmSeconds >= 1 and concurrency >= 1");
        }
    }

    /** The log-normal's shape: ln(p99 / median) / z99; 0 for a fixed delay. */
    @JsonIgnore
    public double sigma() {
        return medianMillis == 0 || p99Millis == medianMillis ? 0 : Math.log((double) p99Millis / medianMillis) / Z99;
    }
}
