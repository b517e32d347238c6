package dev.trafficshaper.simulator.provider;

/**
 * A sub-second limit under the per-minute quota: within any {@code millis} the calls started may
 * reserve at most {@code share} of a minute's quota (per dimension); a call beyond it is throttled
 * even though the minute has room. The reference implementation found that bunched calls breach
 * such a limit at Bedrock (sliding windows alone let sub-second bursts through); AWS publishes
 * neither its horizon nor its share, so it is a knob, off by default. A lone call always fits (a
 * request larger than the share is not refused for its size alone), and only reservations at
 * start count: settlements do not change it.
 *
 * @param millis the horizon (0 = off)
 * @param share  the share of a minute's quota the horizon may hold, in (0, 1]
 */
public record ShortHorizon(long millis, double share) {

    public static final ShortHorizon OFF = new ShortHorizon(0, 0);

    public ShortHorizon {
        if (millis < 0 || millis >= 60_000) {
            throw new IllegalArgumentException("shortHorizon.millis must be in [0, 60000), was " + millis);
        }
        if (millis > 0 && !(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("shortHorizon.share must be in (0, 1], was " + share);
        }
    }

    public boolean enabled() {
        return millis > 0;
    }
}
