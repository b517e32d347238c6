package dev.trafficshaper.submission;

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
 * @param converse        the Bedrock Converse request body as parsed (re-serialized compactly)
 * @param maxTokens       the Converse {@code inferenceConfig.maxTokens}; always present, so the
 *                        reservation Bedrock makes is known before the call
 */
public record Submission(String requestId, String modelKey, Lane lane, long deadlineSeconds, String callbackUrl,
                         Payload converse, long maxTokens) {

    public Submission {
        Objects.requireNonNull(modelKey, "modelKey");
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(converse, "converse");
        if (deadlineSeconds < 1 || maxTokens < 1) {
            throw new IllegalArgumentException("deadlineSeconds and maxTokens must be positive");
        }
    }

    public Optional<String> requestIdIfGiven() {
        return Optional.ofNullable(requestId);
    }

    /** The same submission sent to another model, for fallback routing. */
    public Submission routedTo(String otherModelKey) {
        return new Submission(requestId, otherModelKey, lane, deadlineSeconds, callbackUrl, converse, maxTokens);
    }
}
