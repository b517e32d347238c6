package dev.trafficshaper.pacing;

/**
 * Ramps the admission rate up after an idle period instead of jumping straight to the target.
 *
 * <p>Why: after a quiet spell the pacer knows least about what else is using the quota, and the
 * provider's own meter may still hold charges it cannot see. The ramp is short (seconds) so it
 * costs little throughput, and it starts from a floor so a lone request is not delayed much.
 *
 * <pre>
 *   factor(t) = floor + (1 − floor) × min(1, (t − rampStart) / rampMillis)
 * </pre>
 * A ramp starts at the first admission after {@code idleMillis} without any. A successor carries
 * its predecessor's last admission and ramp start over, so a handoff in the middle of busy traffic
 * does not look like an idle period, and one after a real idle period ramps as usual.
 */
final class SlowStart {

    private final long idleMillis;
    private final long rampMillis;
    private final double floor;
    private long lastAdmission = Long.MIN_VALUE;
    private long rampStart = Long.MIN_VALUE;

    SlowStart(PacerSettings settings) {
        this.idleMillis = settings.idleMillis();
        this.rampMillis = settings.slowStartMillis();
        this.floor = settings.slowStartFloor();
    }

    /** Rate factor for an admission made now; starts a ramp if the pacer has been idle. */
    double factorForAdmission(long nowMillis) {
        if (lastAdmission == Long.MIN_VALUE || nowMillis - lastAdmission >= idleMillis) {
            rampStart = nowMillis;
        }
        lastAdmission = nowMillis;
        return factor(nowMillis);
    }

    long lastAdmission() {
        return lastAdmission;
    }

    long rampStart() {
        return rampStart;
    }

    void restore(long lastAdmissionMillis, long rampStartMillis) {
        this.lastAdmission = lastAdmissionMillis;
        this.rampStart = rampStartMillis;
    }

    /** Rate factor at a moment, without admitting anything. */
    double factor(long nowMillis) {
        boolean idle = lastAdmission == Long.MIN_VALUE || nowMillis - lastAdmission >= idleMillis;
        long start = idle ? nowMillis : rampStart;
        if (rampMillis == 0) {
            return 1.0;
        }
        double progress = Math.min(1.0, Math.max(0.0, (double) (nowMillis - start) / rampMillis));
        return floor + (1.0 - floor) * progress;
    }
}
