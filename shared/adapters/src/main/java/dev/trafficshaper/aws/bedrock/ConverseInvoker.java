package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.OutcomeClassifier;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * Converse on bedrock-runtime: {@code POST /model/{modelId}/converse} with the caller's body as it
 * came. The SDK's Converse operation would take the request only as its typed model, which cannot
 * carry what it does not know; so the body goes as bytes, signed with the SDK's signer. Usage is
 * the response's {@code usage}: {@code inputTokens}, {@code outputTokens},
 * {@code cacheReadInputTokens}, {@code cacheWriteInputTokens}; how long Bedrock worked on it is its
 * {@code metrics.latencyMs}. Errors carry their code in
 * {@code x-amzn-ErrorType}.
 */
final class ConverseInvoker implements ShapeInvoker {

    private final SignedHttp http;
    private final URI endpoint;

    ConverseInvoker(SignedHttp http, URI endpoint) {
        this.http = http;
        this.endpoint = endpoint;
    }

    @Override
    public BedrockOutcome invoke(ModelConfig model, byte[] request, Duration timeout) {
        URI uri = endpoint.resolve("/model/" + URLEncoder.encode(model.modelId(), StandardCharsets.UTF_8)
                .replace("+", "%20") + "/converse");
        SignedHttp.Reply reply;
        try {
            reply = http.post(uri, request, Map.of(), timeout);
        } catch (SignedHttp.TimedOut e) {
            return OutcomeClassifier.clientTimeout(e.getMessage());
        } catch (IOException e) {
            return OutcomeClassifier.connectionFailure(e);
        }
        return RuntimeReplies.outcome(reply, ConverseInvoker::success);
    }

    private static BedrockOutcome success(JsonNode body, SignedHttp.Reply reply) {
        JsonNode usage = body.path("usage");
        TokenUsage tokens = new TokenUsage(UsageReading.count(usage, "inputTokens"),
                UsageReading.count(usage, "outputTokens"), UsageReading.count(usage, "cacheReadInputTokens"),
                UsageReading.count(usage, "cacheWriteInputTokens"));
        JsonNode latency = body.path("metrics").path("latencyMs");
        return new BedrockOutcome.Succeeded(tokens, body.path("stopReason").asText(""),
                new String(reply.body(), StandardCharsets.UTF_8),
                latency.canConvertToLong() && latency.asLong() >= 0 ? latency.asLong()
                        : BedrockOutcome.Succeeded.UNKNOWN_SERVICE);
    }
}
