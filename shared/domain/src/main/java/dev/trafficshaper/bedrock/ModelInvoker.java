package dev.trafficshaper.bedrock;

import dev.trafficshaper.model.ModelConfig;
import java.time.Duration;

/**
 * Calls a model once. Implementations never retry and never throw for a failed call: whether and
 * when to try again is the pacer's decision, made with the deadline and the quota in view.
 */
public interface ModelInvoker {

    /**
     * @param model               the model to call; its Bedrock id replaces any the request names
     * @param converseRequestJson a Bedrock Converse request body
     * @param timeout             the longest the whole call may take before it counts as transient
     */
    BedrockOutcome invoke(ModelConfig model, String converseRequestJson, Duration timeout);
}
