package dev.trafficshaper.submission;

import dev.trafficshaper.model.Backend;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.Payload;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed and validated {@code POST /v1/requests} body.
 *
 * @param requestId       the caller's id, or null to have one generated
 * @param modelKey        a model the catalog knows
 * @param deadlineSeconds seconds from submission the caller will wait, within the model's maximum
 * @param callbackUrl     webhook target, or null
 * @param backend         the backend whose shape the body has (the model's)
 * @param body            the request body exactly as the caller sent it, byte for byte
 * @param shaped          what the shaper read from the body: output limit, tier, named model
 * @param bodyDigest      the whole submitted body's canonical digest ({@link BodyDigest})
 */
public record Submission(String requestId, String modelKey, Lane lane, long deadlineSeconds, String callbackUrl,
                         Backend backend, Payload body, ShapedBody shaped, String bodyDigest) {

    public Submission {
        Objects.requireNonNull(modelKey, "modelKey");
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(shaped, "shaped");
        Objects.requireNonNull(bodyDigest, "bodyDigest");
        if (deadlineSeconds < 1) {
            throw new IllegalArgumentException("deadlineSeconds must be positive");
        }
    }

    public Optional<String> requestIdIfGiven() {
        return Optional.ofNullable(requestId);
    }

    /**
     * The output allowance the body asks for; always present, so the reservation Bedrock makes is
     * known before the call.
     */
    public long maxTokens() {
        return shaped.outputLimit();
    }

    /** The same submission sent to another model, for fallback routing. */
    public Submission routedTo(String otherModelKey) {
        return new Submission(requestId, otherModelKey, lane, deadlineSeconds, callbackUrl, backend, body, shaped, bodyDigest);
    }
}
