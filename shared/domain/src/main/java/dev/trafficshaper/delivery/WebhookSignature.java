package dev.trafficshaper.delivery;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs webhook bodies: {@code X-Shaper-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">}
 * with {@code X-Shaper-Timestamp: <epoch seconds>}. The timestamp is inside the MAC, so a receiver
 * that rejects old timestamps also rejects replays.
 */
public final class WebhookSignature {

    public static final String TIMESTAMP_HEADER = "X-Shaper-Timestamp";
    public static final String SIGNATURE_HEADER = "X-Shaper-Signature";

    private WebhookSignature() {
    }

    public static String sign(byte[] secret, long timestampSeconds, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] digest = mac.doFinal((timestampSeconds + "." + body).getBytes(StandardCharsets.UTF_8));
            return "sha256=" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }
}
