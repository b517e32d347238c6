package dev.trafficshaper.payload;

import java.util.Locale;

/** What a stored body is: the caller's Converse request, or Bedrock's response. */
public enum PayloadKind {
    REQUEST,
    RESULT;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static PayloadKind fromWireName(String name) {
        for (PayloadKind kind : values()) {
            if (kind.wireName().equals(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown payload kind '" + name + "'");
    }
}
