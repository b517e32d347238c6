package dev.trafficshaper.loadtest.demo;

import java.util.Optional;

/**
 * One arm's outcome. Throttles and API calls are what the arm's own Bedrock simulator counted;
 * outcomes and latencies are what the arm's client saw.
 *
 * @param throttles              Converse calls the simulator answered with 429
 * @param apiCalls               Converse calls that reached the simulator (retries included)
 * @param latencyP50Ms           median time from sending (submitting) a request to its final outcome
 * @param latencyP99Ms           99th percentile of the same
 * @param deliveredTokens        input + output × burndown tokens of successful calls
 * @param doneSeconds            from the start of the burst to this arm's last final outcome
 * @param deliveredPerTenSeconds {@code deliveredTokens} by the 10 s bucket in which each call ended
 * @param firstError             the first failure that was not a throttle, if any
 */
public record ArmResult(
        Arm arm,
        int requests,
        int succeeded,
        int failed,
        long throttles,
        long apiCalls,
        long latencyP50Ms,
        long latencyP99Ms,
        long deliveredTokens,
        double doneSeconds,
        long[] deliveredPerTenSeconds,
        String firstError) {

    public double successRate() {
        return requests == 0 ? 0 : (double) succeeded / requests;
    }

    public Optional<String> error() {
        return Optional.ofNullable(firstError);
    }

    /** Delivered tokens per minute of this arm's run, as a share of the quota. */
    public double utilization(long quotaTpm) {
        return doneSeconds <= 0 ? 0 : deliveredTokens / (quotaTpm * doneSeconds / 60.0);
    }
}
