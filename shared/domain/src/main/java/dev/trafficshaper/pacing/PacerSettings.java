package dev.trafficshaper.pacing;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Tuning of one model's pacer. Defaults are the conservative production settings; every value is
 * checked in {@link Builder#build()}.
 *
 * @param targetUtilization  share of each quota the pacer spends per minute (0.95)
 * @param interactiveReserve share of the budget the interactive lane can always get (0.30)
 * @param bulkCap            largest share bulk may take while interactive work waits (0.70)
 * @param tenantCaps         optional largest share per tenant, by tenant id
 * @param idleMillis         after this long without admissions the pacer starts slowly again (60 s)
 * @param slowStartMillis    length of the linear ramp after idle (5 s)
 * @param slowStartFloor     rate share at the start of the ramp (0.5)
 * @param throttleBackoff    multiplier applied to the target on an unexpected throttle (0.8)
 * @param minimumTarget      lowest share the target may be pushed down to (0.5)
 * @param recoveryPerMinute  share of the quota the target regains per minute after a throttle (0.05)
 * @param headroom           whether the pacer probes for what the meter allows beyond the strict
 *                           bound ({@link Headroom}; on); off keeps the strict bound exactly
 * @param headroomCeiling    the most of the quota headroom may spend, at least the target (1.0:
 *                           the quota itself, never above)
 * @param headroomBudget     the most of the calls over any 10 minutes headroom's probes may have
 *                           refused ({@link Headroom}; 0.01, at most {@value #MOST_HEADROOM_BUDGET});
 *                           the banked-capacity probe's refusals at a burst's start are booked in
 *                           it but not held to it ({@link BankedCapacity})
 */
public record PacerSettings(
        double targetUtilization,
        double interactiveReserve,
        double bulkCap,
        Map<String, Double> tenantCaps,
        long idleMillis,
        long slowStartMillis,
        double slowStartFloor,
        double throttleBackoff,
        double minimumTarget,
        double recoveryPerMinute,
        boolean headroom,
        double headroomCeiling,
        double headroomBudget) {

    public static PacerSettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .targetUtilization(targetUtilization)
                .interactiveReserve(interactiveReserve)
                .bulkCap(bulkCap)
                .tenantCaps(tenantCaps)
                .idleMillis(idleMillis)
                .slowStartMillis(slowStartMillis)
                .slowStartFloor(slowStartFloor)
                .throttleBackoff(throttleBackoff)
                .minimumTarget(minimumTarget)
                .recoveryPerMinute(recoveryPerMinute)
                .headroom(headroom)
                .headroomCeiling(headroomCeiling)
                .headroomBudget(headroomBudget);
    }

    /** Share of the budget bulk gets while both lanes have work waiting. */
    public double bulkShareUnderContention() {
        return Math.min(bulkCap, 1.0 - interactiveReserve);
    }

    /**
     * The largest budget of extra calls accepted: beyond a tenth of the calls refused, probing
     * costs more calls than it can win back.
     */
    public static final double MOST_HEADROOM_BUDGET = 0.1;

    public static final class Builder {
        private double targetUtilization = 0.95;
        private double interactiveReserve = 0.30;
        private double bulkCap = 0.70;
        private Map<String, Double> tenantCaps = Map.of();
        private long idleMillis = 60_000;
        private long slowStartMillis = 5_000;
        private double slowStartFloor = 0.5;
        private double throttleBackoff = 0.8;
        private double minimumTarget = 0.5;
        private double recoveryPerMinute = 0.05;
        private boolean headroom = true;
        private double headroomCeiling = 1.0;
        private double headroomBudget = Headroom.BUDGET_SHARE;

        private Builder() {
        }

        public Builder headroom(boolean value) {
            this.headroom = value;
            return this;
        }

        public Builder headroomCeiling(double value) {
            this.headroomCeiling = value;
            return this;
        }

        public Builder headroomBudget(double value) {
            this.headroomBudget = value;
            return this;
        }

        public Builder targetUtilization(double value) {
            this.targetUtilization = value;
            return this;
        }

        public Builder interactiveReserve(double value) {
            this.interactiveReserve = value;
            return this;
        }

        public Builder bulkCap(double value) {
            this.bulkCap = value;
            return this;
        }

        public Builder tenantCaps(Map<String, Double> value) {
            this.tenantCaps = value;
            return this;
        }

        public Builder tenantCap(String tenant, double share) {
            Map<String, Double> copy = new TreeMap<>(tenantCaps);
            copy.put(tenant, share);
            this.tenantCaps = copy;
            return this;
        }

        public Builder idleMillis(long value) {
            this.idleMillis = value;
            return this;
        }

        public Builder slowStartMillis(long value) {
            this.slowStartMillis = value;
            return this;
        }

        public Builder slowStartFloor(double value) {
            this.slowStartFloor = value;
            return this;
        }

        public Builder throttleBackoff(double value) {
            this.throttleBackoff = value;
            return this;
        }

        public Builder minimumTarget(double value) {
            this.minimumTarget = value;
            return this;
        }

        public Builder recoveryPerMinute(double value) {
            this.recoveryPerMinute = value;
            return this;
        }

        public PacerSettings build() {
            requireShare("targetUtilization", targetUtilization, false);
            requireShare("interactiveReserve", interactiveReserve, true);
            requireShare("bulkCap", bulkCap, false);
            requireShare("slowStartFloor", slowStartFloor, false);
            requireShare("throttleBackoff", throttleBackoff, false);
            requireShare("minimumTarget", minimumTarget, false);
            requireShare("recoveryPerMinute", recoveryPerMinute, true);
            if (interactiveReserve >= 1.0) {
                throw new IllegalArgumentException("interactiveReserve must stay below 1 (was " + interactiveReserve
                        + "): a reserve of the whole budget leaves nothing for the bulk lane, which would starve");
            }
            if (minimumTarget > targetUtilization) {
                throw new IllegalArgumentException("minimumTarget " + minimumTarget
                        + " must not exceed targetUtilization " + targetUtilization);
            }
            if (idleMillis < 0 || slowStartMillis < 0) {
                throw new IllegalArgumentException("idleMillis and slowStartMillis must not be negative");
            }
            tenantCaps.forEach((tenant, share) -> requireShare("tenantCaps." + tenant, share, false));
            requireShare("headroomCeiling", headroomCeiling, false);
            if (headroomCeiling < targetUtilization) {
                throw new IllegalArgumentException("headroomCeiling " + headroomCeiling
                        + " must not be below targetUtilization " + targetUtilization);
            }
            if (!(headroomBudget > 0.0 && headroomBudget <= MOST_HEADROOM_BUDGET)) {
                throw new IllegalArgumentException("headroomBudget must be a share of the calls in (0, "
                        + MOST_HEADROOM_BUDGET + "], was " + headroomBudget
                        + " (for no probe at all, switch headroom off)");
            }
            return new PacerSettings(targetUtilization, interactiveReserve, bulkCap,
                    Collections.unmodifiableSortedMap(new TreeMap<>(tenantCaps)), idleMillis, slowStartMillis, slowStartFloor,
                    throttleBackoff, minimumTarget, recoveryPerMinute, headroom, headroomCeiling, headroomBudget);
        }

        private static void requireShare(String name, double value, boolean zeroAllowed) {
            boolean ok = value <= 1.0 && (zeroAllowed ? value >= 0.0 : value > 0.0);
            if (!ok || Double.isNaN(value)) {
                throw new IllegalArgumentException(name + " must be a share in " + (zeroAllowed ? "[0, 1]" : "(0, 1]")
                        + ", was " + value);
            }
        }
    }
}
