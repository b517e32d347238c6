package dev.trafficshaper.bedrock;

import dev.trafficshaper.model.ServiceTier;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.RawJson;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * An InvokeModel call as the shaper stores it: the native body exactly as the caller sent it,
 * plus the service tier, which InvokeModel takes as a header ({@code X-Amzn-Bedrock-Service-Tier})
 * rather than in the body: {@code {"serviceTier": "flex", "body": <native body>}}.
 */
public record InvokeModelRequest(byte[] body, ServiceTier serviceTier) {

    public InvokeModelRequest {
        if (body == null || body.length == 0) {
            throw new IllegalArgumentException("an InvokeModel body is required");
        }
    }

    public Optional<ServiceTier> tier() {
        return Optional.ofNullable(serviceTier);
    }

    public Payload toPayload() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 40);
        out.writeBytes("{".getBytes(StandardCharsets.UTF_8));
        if (serviceTier != null) {
            out.writeBytes(("\"serviceTier\":" + RawJson.quote(serviceTier.wireName()) + ",")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes("\"body\":".getBytes(StandardCharsets.UTF_8));
        out.writeBytes(body);
        out.writeBytes("}".getBytes(StandardCharsets.UTF_8));
        return Payload.json(out.toByteArray());
    }

    /** @throws IllegalArgumentException when the stored request is not of this form */
    public static InvokeModelRequest read(String stored) {
        byte[] bytes = stored.getBytes(StandardCharsets.UTF_8);
        byte[] body = RawJson.member(bytes, "body")
                .orElseThrow(() -> new IllegalArgumentException("the stored InvokeModel request has no body"));
        ServiceTier tier = RawJson.member(bytes, "serviceTier")
                .map(raw -> new String(raw, StandardCharsets.UTF_8))
                .map(text -> ServiceTier.fromWireName(text.replace("\"", "")))
                .orElse(null);
        return new InvokeModelRequest(body, tier);
    }
}
