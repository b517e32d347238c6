package dev.trafficshaper.submission;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;

/**
 * Estimates the input tokens of a request body of the model's backend before it is sent, so the
 * pacer can reserve what Bedrock will reserve. An underestimate is paid for in throttle risk, an
 * overestimate in idle quota; the drainer corrects every estimate to actual usage at settlement.
 */
public interface TokenEstimator {

    /** @param body the caller's body for {@code model}'s backend (for InvokeModel, the native body) */
    long inputTokens(ModelConfig model, Payload body);
}
