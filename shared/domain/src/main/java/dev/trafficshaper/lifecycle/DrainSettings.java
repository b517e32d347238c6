package dev.trafficshaper.lifecycle;

/**
 * How the drainer paces its own bookkeeping. Defaults suit Lambda and the local runtime alike.
 *
 * @param leaseMillis        lease length; renewed every third of it
 * @param headsPerLane       queue heads read per lane and refresh
 * @param headsRefreshMillis how often heads are re-read while work remains (new interactive work
 *                           is seen within this time)
 * @param pollMillis         how often outstanding admissions are checked for settlement or throttle
 * @param statusMillis       how often the model's status is published
 * @param depthMillis        how often the queue depth is counted (a full count reads every shard)
 * @param stuckMillis        an admission not settled after this long is given up (its processor died)
 */
public record DrainSettings(long leaseMillis, int headsPerLane, long headsRefreshMillis, long pollMillis,
                            long statusMillis, long depthMillis, long stuckMillis) {

    public DrainSettings {
        if (leaseMillis < 3_000 || headsPerLane < 1 || headsRefreshMillis < 1 || pollMillis < 1 || statusMillis < 1
                || depthMillis < 1 || stuckMillis < 1) {
            throw new IllegalArgumentException("drain settings must be positive (lease at least 3 s)");
        }
    }

    public static DrainSettings defaults() {
        return new DrainSettings(30_000, 50, 1_000, 500, 2_000, 5_000, 16 * 60_000);
    }
}
