package dev.trafficshaper.lifecycle;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.request.Identifiers;
import dev.trafficshaper.request.NewRequest;
import java.util.Objects;

/**
 * An accepted submission on its way to the queue: validated, routed, estimated, its body stored.
 * This, not the body, is what the workflow carries (the execution input stays far below Step
 * Functions' 256 KB), and what the Budget Manager turns into a queued request.
 *
 * @param estimate   expected usage: estimated input tokens and {@code maxTokens} as output
 * @param bodyDigest nullable; the submitted body's canonical digest ({@code Submission#bodyDigest})
 */
public record Ticket(String requestId, String tenant, String modelKey, Lane lane, long submittedAtMillis,
                     long deadlineMillis, TokenUsage estimate, PayloadRef payloadRef, String callbackUrl,
                     String bodyDigest) {

    public Ticket {
        Identifiers.require("requestId", requestId);
        Identifiers.require("model", modelKey);
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(estimate, "estimate");
        Objects.requireNonNull(payloadRef, "payloadRef");
        if (deadlineMillis <= submittedAtMillis) {
            throw new IllegalArgumentException("the deadline must be after the submission");
        }
    }

    /** A ticket that carries no body digest. */
    public Ticket(String requestId, String tenant, String modelKey, Lane lane, long submittedAtMillis,
                  long deadlineMillis, TokenUsage estimate, PayloadRef payloadRef, String callbackUrl) {
        this(requestId, tenant, modelKey, lane, submittedAtMillis, deadlineMillis, estimate, payloadRef, callbackUrl,
                null);
    }

    /** The queued request this ticket becomes, released through {@code taskToken} (null locally). */
    public NewRequest toNewRequest(String taskToken) {
        return NewRequest.builder().requestId(requestId).tenant(tenant).modelKey(modelKey).lane(lane)
                .deadlineMillis(deadlineMillis).estimate(estimate).payloadRef(payloadRef).taskToken(taskToken)
                .callbackUrl(callbackUrl).bodyDigest(bodyDigest).build();
    }
}
