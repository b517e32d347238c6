package dev.trafficshaper.simulator.provider;

/**
 * How the provider meters a per-minute quota. AWS does not document which one Bedrock uses, so the
 * simulator implements all three and the shaper must be safe under each.
 */
public enum QuotaModel {
    /** A bucket of one minute's quota (times the burst allowance) refilling continuously. */
    TOKEN_BUCKET("token-bucket"),
    /** Clock minutes: each minute starting at :00 has the whole quota. */
    FIXED_WINDOW("fixed-window"),
    /** The last 60 seconds, whenever they are measured, may hold at most the quota. */
    SLIDING_WINDOW("sliding-window");

    private final String wireName;

    QuotaModel(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static QuotaModel fromWireName(String name) {
        for (QuotaModel model : values()) {
            if (model.wireName.equals(name)) {
                return model;
            }
        }
        throw new IllegalArgumentException("unknown quota model '" + name
                + "': expected token-bucket, fixed-window or sliding-window");
    }
}
