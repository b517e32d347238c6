package dev.trafficshaper.model;

import java.util.Locale;

/**
 * Bedrock's service tiers. A model's quota is shared by every tier, so a tier changes precedence
 * and price, never the budget the pacer spends: the shaper only checks that the model offers the
 * tier a request asks for.
 */
public enum ServiceTier {
    /** Standard; what a request that names no tier gets. */
    DEFAULT("default"),
    PRIORITY("priority"),
    FLEX("flex"),
    RESERVED("reserved");

    private final String wireName;

    ServiceTier(String wireName) {
        this.wireName = wireName;
    }

    /** The value Converse's {@code serviceTier.type} and InvokeModel's tier header carry. */
    public String wireName() {
        return wireName;
    }

    public static ServiceTier fromWireName(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (ServiceTier tier : values()) {
            if (tier.wireName.equals(wanted)) {
                return tier;
            }
        }
        throw new IllegalArgumentException("unknown service tier '" + name + "': expected default, priority, flex"
                + " or reserved");
    }
}
