package dev.trafficshaper.aws.bedrock;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.model.ModelConfig;
import java.time.Duration;

/** Calls one wire shape once; never throws for a failed call and never retries. */
interface ShapeInvoker {

    /** @param request the stored request's bytes (for InvokeModel, an {@code InvokeModelRequest}) */
    BedrockOutcome invoke(ModelConfig model, byte[] request, Duration timeout);
}
