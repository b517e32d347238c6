package dev.trafficshaper.payload;

/**
 * Where a body goes and how large it may be. DynamoDB items stop at 400 KB including attribute
 * names and the other attributes, so bodies up to {@code inlineMaxBytes} go into the table and
 * larger ones to object storage (claim check). Nothing is ever truncated: a body over
 * {@code maxBytes} is refused before anything is written.
 */
public record PayloadPolicy(int inlineMaxBytes, int maxBytes) {

    public static final int DEFAULT_INLINE_MAX_BYTES = 350 * 1024;
    public static final int DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

    public PayloadPolicy {
        if (inlineMaxBytes < 0 || inlineMaxBytes > 380 * 1024) {
            throw new IllegalArgumentException("inlineMaxBytes must be in [0, 380 KiB] to fit a DynamoDB item");
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive");
        }
    }

    public static PayloadPolicy defaults() {
        return new PayloadPolicy(DEFAULT_INLINE_MAX_BYTES, DEFAULT_MAX_BYTES);
    }

    /** The reference a body will get, after checking it may be stored at all. */
    public PayloadRef place(String requestId, PayloadKind kind, Payload payload, long expiresAtMillis) {
        if (payload.size() > maxBytes) {
            throw new InvalidPayloadException("payload: " + payload.size() + " bytes is over the limit of "
                    + maxBytes + " bytes");
        }
        PayloadRef.Location location = payload.size() <= inlineMaxBytes
                ? PayloadRef.Location.INLINE : PayloadRef.Location.OBJECT;
        return new PayloadRef(location, requestId, kind, payload.sha256(), payload.size(),
                dev.trafficshaper.request.RequestRecord.ceilToSecond(expiresAtMillis));
    }
}
