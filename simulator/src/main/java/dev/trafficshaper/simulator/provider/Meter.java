package dev.trafficshaper.simulator.provider;

/** The provider's meter for one quota dimension. Amounts are tokens (or requests); time is millis. */
interface Meter {

    /**
     * Takes {@code amount} if the quota allows it now; returns a handle for the settlement, or null.
     * {@code roll} is a uniform draw in [0, 1) deciding calls that land in the burst allowance.
     */
    Object tryReserve(long amount, long nowMillis, double roll);

    /**
     * The earliest time at or after {@code fromMillis} at which {@code amount} fits within the quota
     * (not the burst allowance, so the call is accepted whatever the roll), supposing nothing else is
     * charged or settled meanwhile: regeneration, window expiry and the next clock minute are counted.
     * {@link Long#MAX_VALUE} when it never fits. Reads the meter without changing it.
     */
    long earliestFit(long amount, long fromMillis);

    /** Books the final amount of an earlier reservation; usually a refund. */
    void settle(Object handle, long reserved, long actual, long nowMillis);

    /** Charges part of a rejected attempt anyway (see {@link Leniency#throttledChargeFactor()}). */
    void penalize(long amount, long nowMillis);

    /**
     * Whether a call that would bring usage to {@code usedAfter} is accepted, for a meter whose quota
     * is {@code quota} and whose ceiling is {@code ceiling} (quota × burst allowance).
     */
    static boolean admits(double usedAfter, double quota, double ceiling, double roll) {
        if (usedAfter <= quota) {
            return true;
        }
        if (usedAfter > ceiling) {
            return false;
        }
        return roll >= (usedAfter - quota) / (ceiling - quota);
    }
}
