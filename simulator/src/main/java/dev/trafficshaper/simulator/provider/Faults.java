package dev.trafficshaper.simulator.provider;

/**
 * Failures the provider injects independently of the quota.
 *
 * @param serverErrorRate share of accepted calls that fail with a 5xx after time to first token
 * @param timeoutRate     share of accepted calls that never answer within {@code timeoutMillis}
 * @param timeoutMillis   how long the caller waits before giving up on such a call
 */
public record Faults(double serverErrorRate, double timeoutRate, long timeoutMillis) {

    public static final Faults NONE = new Faults(0, 0, 60_000);

    public Faults {
        if (serverErrorRate < 0 || timeoutRate < 0 || serverErrorRate + timeoutRate > 1 || timeoutMillis < 1) {
            throw new IllegalArgumentException("fault rates must be shares summing to at most 1");
        }
    }
}
