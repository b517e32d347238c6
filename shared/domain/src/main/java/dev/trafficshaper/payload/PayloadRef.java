package dev.trafficshaper.payload;

import dev.trafficshaper.request.Identifiers;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a stored body lives (claim check). The reference, not the body, travels in records and
 * Step Functions payloads.
 *
 * @param location        INLINE: a table item; OBJECT: an object in the payload bucket
 * @param requestId       the request the body belongs to
 * @param kind            request or result
 * @param sha256          hex SHA-256 of the body, checked on every read
 * @param sizeBytes       exact body length
 * @param expiresAtMillis when the body stops being served (a whole second)
 */
public record PayloadRef(Location location, String requestId, PayloadKind kind, String sha256, long sizeBytes,
                         long expiresAtMillis) {

    public enum Location { INLINE, OBJECT }

    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    public PayloadRef {
        Objects.requireNonNull(location, "location");
        Identifiers.require("requestId", requestId);
        Objects.requireNonNull(kind, "kind");
        if (sha256 == null || !SHA256_HEX.matcher(sha256).matches()) {
            throw new IllegalArgumentException("sha256 must be 64 lowercase hex digits");
        }
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("sizeBytes must not be negative");
        }
        if (expiresAtMillis % 1000 != 0) {
            throw new IllegalArgumentException("expiresAtMillis must be a whole second");
        }
    }

    /** A stable name for the body: the same request, kind and content always give the same key. */
    public String key() {
        return requestId + "/" + kind.wireName() + "/" + sha256;
    }
}
