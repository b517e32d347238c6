package dev.trafficshaper.submission;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.model.ModelConfig;

/**
 * One request shape a backend takes: what the shaper checks at the door before the body waits in
 * the queue. Only what is known at submission is checked (the shape's own fields, the output
 * limit, streaming, the tier); everything else is Bedrock's to validate.
 */
public interface RequestShape {

    /**
     * @param key   the submission key the body came under, for error paths ({@code converse})
     * @throws InvalidSubmissionException naming the field that makes the body unusable
     */
    ShapedBody check(JsonNode body, String key, ModelConfig model);
}
