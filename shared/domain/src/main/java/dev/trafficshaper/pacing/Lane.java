package dev.trafficshaper.pacing;

import java.util.Locale;

/** Priority lane of a request. Interactive traffic has a reserved share; bulk is capped. */
public enum Lane {
    INTERACTIVE,
    BULK;

    /** The lane's name in the HTTP API and in stored keys: {@code interactive} or {@code bulk}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Lane fromWireName(String name) {
        for (Lane lane : values()) {
            if (lane.wireName().equals(name)) {
                return lane;
            }
        }
        throw new IllegalArgumentException("unknown priority '" + name + "': expected interactive or bulk");
    }
}
