package dev.trafficshaper.loadtest.sim;

import java.util.List;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One strategy's outcome in a scenario, as written to {@code result.json}.
 *
 * @param throttled          API calls answered with 429
 * @param requeues           requests sent back to the queue after an unexpected 429 or a transient error
 * @param drainSeconds       first arrival to the last request's final outcome
 * @param utilization        quota-charged tokens per minute ÷ quota over the backlogged period
 * @param deliveredPerMinute quota-charged tokens of successful calls, by the minute they started
 * @param deliveredPerTenSeconds the same in 10 s buckets, for charts
 * @param queueDepthPerSecond largest number of requests waiting in each second
 * @param waitP50Ms          median wait: arrival to the start of the call that ended the request
 * @param waitP99Ms          99th percentile of the wait
 * @param lanes              waits per lane
 * @param tenants            waits per tenant
 * @param drainer            what the production drainer's surroundings did (shaper only), or null
 * @param dimensionUtilization utilization per metered dimension ({@code rpm}, {@code tpm},
 *                           {@code inputTpm}, {@code outputTpm}); {@code utilization} is the highest
 */
public record StrategyResult(
        String strategy,
        long requests,
        long succeeded,
        long failed,
        long throttled,
        long apiCalls,
        long requeues,
        long latencyP50Ms,
        long latencyP99Ms,
        double drainSeconds,
        double utilization,
        long[] deliveredPerMinute,
        long[] deliveredPerTenSeconds,
        long[] queueDepthPerSecond,
        long waitP50Ms,
        long waitP99Ms,
        List<GroupWait> lanes,
        List<GroupWait> tenants,
        DrainerActivity drainer,
        Map<String, Double> dimensionUtilization) {

    public StrategyResult {
        // in the order given (rpm, tpm, inputTpm, outputTpm): Map.copyOf's order changes from run to run
        dimensionUtilization = dimensionUtilization == null ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(dimensionUtilization));
    }

    /** This drain time as a multiple of the oracle's (its physical limit); 0 when either is 0. */
    public double versus(StrategyResult oracle) {
        return oracle == null || oracle.drainSeconds() <= 0 ? 0 : drainSeconds / oracle.drainSeconds();
    }

    public double successRate() {
        return requests == 0 ? 0 : (double) succeeded / requests;
    }
}
