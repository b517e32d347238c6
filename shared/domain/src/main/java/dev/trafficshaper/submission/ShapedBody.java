package dev.trafficshaper.submission;

import dev.trafficshaper.model.ServiceTier;
import java.util.Optional;

/**
 * What the shaper needs to know about a request body it will pass through unchanged.
 *
 * @param outputLimit      the output allowance Bedrock reserves ({@code maxTokens},
 *                         {@code max_tokens}, {@code max_output_tokens}...)
 * @param outputLimitField where the body keeps it, as a path into the submission
 * @param tier             the service tier the body asks for, or null when it names none
 * @param tierField        where the tier is given, or null
 * @param bodyModel        the model id a bedrock-mantle body names itself, or null
 */
public record ShapedBody(long outputLimit, String outputLimitField, ServiceTier tier, String tierField,
                         String bodyModel) {

    public ShapedBody {
        if (outputLimit < 1 || outputLimitField == null) {
            throw new IllegalArgumentException("an output limit and its field are required");
        }
    }

    public Optional<ServiceTier> requestedTier() {
        return Optional.ofNullable(tier);
    }

    public ShapedBody withTier(ServiceTier newTier, String field) {
        return new ShapedBody(outputLimit, outputLimitField, newTier, field, bodyModel);
    }
}
