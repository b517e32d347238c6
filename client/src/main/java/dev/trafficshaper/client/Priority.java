package dev.trafficshaper.client;

import java.util.Locale;

/** The lane a request is queued in. Interactive traffic has a reserved share of the quota; bulk is capped. */
public enum Priority {
    INTERACTIVE,
    BULK;

    /** The name in the HTTP API: {@code interactive} or {@code bulk}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
