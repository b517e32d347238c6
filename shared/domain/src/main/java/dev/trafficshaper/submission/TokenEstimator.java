package dev.trafficshaper.submission;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;

/**
 * Estimates the input tokens of a Converse request before it is sent, so the pacer can reserve
 * what Bedrock will reserve. An underestimate is paid for in throttle risk, an overestimate in
 * idle quota; the drainer corrects every estimate to actual usage at settlement.
 */
public interface TokenEstimator {

    long inputTokens(ModelConfig model, Payload converse);
}
