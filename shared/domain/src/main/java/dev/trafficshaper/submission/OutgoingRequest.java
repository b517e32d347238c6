package dev.trafficshaper.submission;

import dev.trafficshaper.bedrock.InvokeModelRequest;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.model.ServiceTier;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.RawJson;
import java.util.Optional;

/**
 * The request the Bedrock Processor will send for a submission routed to {@code model}, stored
 * with the submission. The caller's body is kept byte for byte; the shaper adds a field only where
 * it owns the decision and the caller left it out:
 *
 * <ul>
 *   <li>{@code model} in a bedrock-mantle body: the shaper routes by its own model key (and may
 *       route to the fallback), so it names the Bedrock model it chose;</li>
 *   <li>the service tier of a bulk-lane request, when the model is configured to send bulk as
 *       {@code bulkServiceTier} (Converse {@code serviceTier}, Chat Completions and Responses
 *       {@code service_tier}, InvokeModel's tier header).</li>
 * </ul>
 * An InvokeModel request is stored as {@link InvokeModelRequest}, since its tier travels outside
 * the body.
 */
public final class OutgoingRequest {

    private OutgoingRequest() {
    }

    public static Payload forModel(ModelConfig model, Submission submission) {
        byte[] body = submission.body().bytes();
        Optional<ServiceTier> tier = submission.shaped().requestedTier();
        Optional<ServiceTier> added = tier.isPresent() || submission.lane() != Lane.BULK ? Optional.empty()
                : model.backendSettings().bulkTier();
        switch (model.backend()) {
            case INVOKE_MODEL -> {
                return new InvokeModelRequest(body, tier.or(() -> added).orElse(null)).toPayload();
            }
            case CONVERSE -> {
                if (added.isPresent()) {
                    body = RawJson.withFirstMember(body, "serviceTier",
                            "{\"type\":" + RawJson.quote(added.get().wireName()) + "}");
                }
            }
            case MANTLE_CHAT_COMPLETIONS, MANTLE_RESPONSES, MANTLE_MESSAGES -> {
                if (added.isPresent()) {
                    body = RawJson.withFirstMember(body, "service_tier", RawJson.quote(added.get().wireName()));
                }
                if (submission.shaped().bodyModel() == null) {
                    body = RawJson.withFirstMember(body, "model", RawJson.quote(model.modelId()));
                }
            }
        }
        return Payload.json(body);
    }
}
