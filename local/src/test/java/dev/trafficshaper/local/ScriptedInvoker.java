package dev.trafficshaper.local;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.bedrock.RejectionKind;
import dev.trafficshaper.bedrock.TransientKind;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A model that answers by what the prompt says, so server tests need no simulator: a prompt
 * containing {@code fail:validation}, {@code fail:denied} or {@code fail:throttle} fails that
 * way, {@code fail:late} waits past a one-second deadline, {@code hold} waits until
 * {@link #release()}; anything else succeeds with 7 input and 5 output tokens.
 */
final class ScriptedInvoker implements ModelInvoker {

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final CountDownLatch held = new CountDownLatch(1);

    @Override
    public BedrockOutcome invoke(ModelConfig model, String converseRequestJson, Duration timeout) {
        calls.add(converseRequestJson);
        try {
            if (converseRequestJson.contains("hold")) {
                held.await(30, TimeUnit.SECONDS);
            }
            if (converseRequestJson.contains("fail:late")) {
                Thread.sleep(1_500);
                return new BedrockOutcome.Transient(TransientKind.CLIENT_TIMEOUT, 0, "no answer in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new BedrockOutcome.Transient(TransientKind.CONNECTION_BROKEN, 0, "interrupted");
        }
        if (converseRequestJson.contains("fail:validation")) {
            return new BedrockOutcome.Rejected(RejectionKind.VALIDATION, 400, "ValidationException: bad request");
        }
        if (converseRequestJson.contains("fail:denied")) {
            // A 5xx would go back to the queue (Bedrock did nothing); the deployment's fault ends it as a 503.
            return new BedrockOutcome.Rejected(RejectionKind.ACCESS_DENIED, 403, "AccessDeniedException");
        }
        if (converseRequestJson.contains("fail:throttle")) {
            return new BedrockOutcome.Throttled("ThrottlingException: Too many tokens");
        }
        return new BedrockOutcome.Succeeded(TokenUsage.of(7, 5), "end_turn",
                "{\"output\":{\"message\":{\"role\":\"assistant\",\"content\":[{\"text\":\"fine, thanks\"}]}},"
                        + "\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":7,\"outputTokens\":5,\"totalTokens\":12}}");
    }

    void release() {
        held.countDown();
    }

    /** The Converse bodies the model was called with, in order. */
    List<String> calls() {
        return List.copyOf(calls);
    }
}
