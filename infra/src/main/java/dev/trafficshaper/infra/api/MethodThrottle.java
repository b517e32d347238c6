package dev.trafficshaper.infra.api;

import dev.trafficshaper.infra.config.InvalidDeploymentException;

/**
 * One API Gateway method's token bucket: a steady rate and a burst.
 *
 * @param rate  requests per second
 * @param burst bucket size, at least 1
 */
public record MethodThrottle(double rate, int burst) {

    public MethodThrottle {
        if (!(rate > 0) || Double.isInfinite(rate) || burst < 1) {
            throw new InvalidDeploymentException("a throttle needs a positive rate and a burst of at least 1, was "
                    + rate + "/s burst " + burst);
        }
    }

    /** This throttle with each of the given values that is not null in place of its own. */
    MethodThrottle overriddenBy(Double rateOverride, Integer burstOverride) {
        return new MethodThrottle(rateOverride != null ? rateOverride : rate,
                burstOverride != null ? burstOverride : burst);
    }
}
