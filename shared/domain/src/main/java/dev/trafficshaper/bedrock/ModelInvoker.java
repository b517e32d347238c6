package dev.trafficshaper.bedrock;

import dev.trafficshaper.model.ModelConfig;
import java.time.Duration;

/**
 * Calls a model once. Implementations never retry and never throw for a failed call: whether and
 * when to try again is the pacer's decision, made with the deadline and the quota in view.
 */
public interface ModelInvoker {

    /**
     * @param model       the model to call, through its backend
     * @param requestJson the stored request ({@code OutgoingRequest}): the body of the model's
     *                    backend as the caller sent it, or for InvokeModel an
     *                    {@link InvokeModelRequest}
     * @param timeout     the longest the whole call may take before it counts as transient
     */
    BedrockOutcome invoke(ModelConfig model, String requestJson, Duration timeout);
}
