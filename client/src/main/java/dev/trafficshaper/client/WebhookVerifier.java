package dev.trafficshaper.client;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs and verifies the shaper's webhook calls.
 *
 * <p>The sender puts the time in {@code X-Shaper-Timestamp} (epoch seconds) and
 * {@code sha256=<lowercase hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>} in
 * {@code X-Shaper-Signature}. Signing the timestamp with the body lets the receiver refuse a
 * replayed call: {@link #verify} accepts a timestamp only within the tolerance of its own clock
 * (five minutes either way by default), and compares signatures in constant time.
 *
 * <p>Verify the body bytes exactly as received, before any JSON parsing; a re-serialized body
 * does not match. The secret is used as its UTF-8 bytes.
 */
public final class WebhookVerifier {

    public static final String TIMESTAMP_HEADER = "X-Shaper-Timestamp";
    public static final String SIGNATURE_HEADER = "X-Shaper-Signature";
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    private static final String SCHEME = "sha256=";
    private static final int HEX_LENGTH = 64;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** The result of a verification; only {@link #VALID} means the call may be trusted. */
    public enum Verdict {
        VALID,
        /** A header is missing or empty. */
        MISSING_HEADER,
        /** The timestamp is not a whole number, or the signature is not {@code sha256=} and 64 hex digits. */
        MALFORMED_HEADER,
        /** The timestamp is further from now than the tolerance: a replay, or a badly wrong clock. */
        STALE_TIMESTAMP,
        /** The signature does not match this body, timestamp and secret. */
        BAD_SIGNATURE;

        public boolean isValid() {
            return this == VALID;
        }
    }

    private final Duration tolerance;

    private WebhookVerifier(Duration tolerance) {
        this.tolerance = tolerance;
    }

    /** A verifier with the {@link #DEFAULT_TOLERANCE} of five minutes. */
    public static WebhookVerifier create() {
        return new WebhookVerifier(DEFAULT_TOLERANCE);
    }

    public static WebhookVerifier withTolerance(Duration tolerance) {
        Objects.requireNonNull(tolerance, "tolerance");
        if (tolerance.isNegative()) {
            throw new IllegalArgumentException("tolerance must not be negative, was " + tolerance);
        }
        return new WebhookVerifier(tolerance);
    }

    public Duration tolerance() {
        return tolerance;
    }

    /**
     * Checks a webhook call.
     *
     * @param secret          the shared webhook secret
     * @param timestampHeader the value of {@value #TIMESTAMP_HEADER}, may be null
     * @param signatureHeader the value of {@value #SIGNATURE_HEADER}, may be null
     * @param rawBody         the body bytes exactly as received
     * @param now             the receiver's current time
     */
    public Verdict verify(String secret, String timestampHeader, String signatureHeader, byte[] rawBody, Instant now) {
        requireSecret(secret);
        Objects.requireNonNull(rawBody, "rawBody");
        Objects.requireNonNull(now, "now");
        if (timestampHeader == null || timestampHeader.isBlank() || signatureHeader == null
                || signatureHeader.isBlank()) {
            return Verdict.MISSING_HEADER;
        }
        long timestamp;
        try {
            timestamp = Long.parseLong(timestampHeader.strip());
        } catch (NumberFormatException e) {
            return Verdict.MALFORMED_HEADER;
        }
        String signature = signatureHeader.strip().toLowerCase(Locale.ROOT);
        if (!signature.startsWith(SCHEME) || signature.length() != SCHEME.length() + HEX_LENGTH
                || !isHex(signature.substring(SCHEME.length()))) {
            return Verdict.MALFORMED_HEADER;
        }
        if (!withinTolerance(now.getEpochSecond(), timestamp)) {
            return Verdict.STALE_TIMESTAMP;
        }
        byte[] expected = sign(secret, timestamp, rawBody).getBytes(StandardCharsets.US_ASCII);
        byte[] actual = signature.getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, actual) ? Verdict.VALID : Verdict.BAD_SIGNATURE;
    }

    /** As {@link #verify(String, String, String, byte[], Instant)}, for a body received as UTF-8 text. */
    public Verdict verify(String secret, String timestampHeader, String signatureHeader, String rawBody, Instant now) {
        Objects.requireNonNull(rawBody, "rawBody");
        return verify(secret, timestampHeader, signatureHeader, rawBody.getBytes(StandardCharsets.UTF_8), now);
    }

    /** The {@value #SIGNATURE_HEADER} value for {@code rawBody} sent at {@code timestampSeconds}. */
    public static String sign(String secret, long timestampSeconds, byte[] rawBody) {
        requireSecret(secret);
        Objects.requireNonNull(rawBody, "rawBody");
        Mac mac = hmac(secret);
        mac.update(Long.toString(timestampSeconds).getBytes(StandardCharsets.US_ASCII));
        mac.update((byte) '.');
        return SCHEME + hex(mac.doFinal(rawBody));
    }

    /** As {@link #sign(String, long, byte[])}, for a body sent as UTF-8 text. */
    public static String sign(String secret, long timestampSeconds, String rawBody) {
        Objects.requireNonNull(rawBody, "rawBody");
        return sign(secret, timestampSeconds, rawBody.getBytes(StandardCharsets.UTF_8));
    }

    /** Both headers for a call sent at {@code now}, for the sending side. */
    public static Map<String, String> signatureHeaders(String secret, byte[] rawBody, Instant now) {
        long timestamp = now.getEpochSecond();
        return Map.of(TIMESTAMP_HEADER, Long.toString(timestamp), SIGNATURE_HEADER, sign(secret, timestamp, rawBody));
    }

    private static void requireSecret(String secret) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("the webhook secret must not be empty");
        }
    }

    private static Mac hmac(String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    private boolean withinTolerance(long nowSeconds, long timestamp) {
        try {
            return Math.absExact(Math.subtractExact(nowSeconds, timestamp)) <= tolerance.getSeconds();
        } catch (ArithmeticException e) {
            return false;
        }
    }

    private static boolean isHex(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }
}
