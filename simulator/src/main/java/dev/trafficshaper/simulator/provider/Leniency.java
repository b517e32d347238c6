package dev.trafficshaper.simulator.provider;

/**
 * Knobs for what Bedrock does not publish about its quota enforcement.
 *
 * @param burstAllowance       how far past the quota the meter may go (1.0 = strict). Up to the quota
 *                             every call that fits is accepted; between quota and quota × this, a
 *                             call is accepted with a chance falling linearly from 1 to 0, so
 *                             throttles arrive interleaved with successes as they do in practice
 * @param throttledChargeFactor what a throttled attempt costs the quota, as a multiple of its
 *                             reservation (0 = throttles are free; above 1 a rejected attempt costs
 *                             more than a served one, which is what makes retry storms collapse)
 * @param refundAtSettlement   whether a refund is booked when the request ends (lenient) rather than
 *                             correcting the charge made when it started (strict)
 */
public record Leniency(double burstAllowance, double throttledChargeFactor, boolean refundAtSettlement) {

    public static final Leniency STRICT = new Leniency(1.0, 0.0, false);

    public Leniency {
        if (burstAllowance < 1.0 || Double.isNaN(burstAllowance)) {
            throw new IllegalArgumentException("burstAllowance must be at least 1.0, was " + burstAllowance);
        }
        if (throttledChargeFactor < 0.0 || throttledChargeFactor > 10.0) {
            throw new IllegalArgumentException("throttledChargeFactor must be in [0, 10], was " + throttledChargeFactor);
        }
    }
}
