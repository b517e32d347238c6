package dev.trafficshaper.payload;

/**
 * Where a body goes and how large it may be. Bodies up to {@code inlineMaxBytes} go into the table
 * and larger ones to object storage (claim check). Nothing is ever truncated: a body over
 * {@code maxBytes} is refused before anything is written.
 *
 * <p>Why 8 KiB by default: the cheaper place, at on-demand list prices. A table item costs one
 * write unit per started KB ($0.625 per million each) and, read back once eventually consistent,
 * half a read unit per started 4 KB ($0.125 per million units); an S3 object costs $5 per million
 * PUTs and $0.40 per million GETs whatever its size (SSE-KMS with a bucket key adds no per-object
 * KMS call). Written once and read once or twice, a body of {@code s} KB costs about
 * 0.64·s dollars per million in the table and 5.4–5.8 in S3: they break even at 8.5–9 KB, so
 * bodies up to 8 KiB stay in the table (the seed's ~4 KB answer) and larger ones go to S3 (its
 * ~20 KB prompt: 20 write units, $12.50 per million, become a $5 PUT). A DynamoDB item stops at
 * 400 KB including attribute names and the other attributes, which bounds the setting at 380 KiB.
 */
public record PayloadPolicy(int inlineMaxBytes, int maxBytes) {

    public static final int DEFAULT_INLINE_MAX_BYTES = 8 * 1024;
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
