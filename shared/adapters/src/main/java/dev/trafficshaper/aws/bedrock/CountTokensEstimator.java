package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.BackendSettings;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.submission.TokenEstimator;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;

/**
 * Input tokens counted by Bedrock's own tokenizer with the CountTokens API (free, no quota) for
 * the models configured with {@code "tokenCounting": "count-tokens"}; every other model, and any
 * count that fails, falls back on the given estimator, so submission never waits on it for long.
 * A model that answers that it does not support counting is not asked again.
 *
 * <p>Converse bodies are counted as {@code {"input": {"converse": {messages, system, toolConfig,
 * additionalModelRequestFields}}}}, native InvokeModel bodies as
 * {@code {"input": {"invokeModel": {"body": <base64>}}}}.
 */
public final class CountTokensEstimator implements TokenEstimator {

    static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Set<String> CONVERSE_COUNTED = Set.of("messages", "system", "toolConfig",
            "additionalModelRequestFields");

    private final Supplier<BedrockTransport> transport;
    private final TokenEstimator fallback;
    private final Set<String> unsupported = ConcurrentHashMap.newKeySet();

    private CountTokensEstimator(Supplier<BedrockTransport> transport, TokenEstimator fallback) {
        this.transport = transport;
        this.fallback = fallback;
    }

    /** @param bedrock built on first use only, when a model asks for CountTokens */
    public static CountTokensEstimator forRuntimeClient(Supplier<BedrockRuntimeClient> bedrock,
                                                        TokenEstimator fallback) {
        Supplier<BedrockTransport> lazy = new Supplier<>() {
            private BedrockTransport value;

            @Override
            public synchronized BedrockTransport get() {
                if (value == null) {
                    value = BedrockTransport.of(bedrock.get(), BedrockTransport.defaultHttpClient(),
                            BedrockTransport.environmentBearerToken());
                }
                return value;
            }
        };
        return new CountTokensEstimator(lazy, fallback);
    }

    @Override
    public long inputTokens(ModelConfig model, Payload body) {
        boolean counts = model.backendSettings().tokenCounting() == BackendSettings.TokenCounting.COUNT_TOKENS
                && !model.backend().isMantle() && !unsupported.contains(model.key());
        if (!counts) {
            return fallback.inputTokens(model, body);
        }
        try {
            BedrockTransport t = transport.get();
            URI uri = t.runtimeEndpoint.resolve("/model/" + URLEncoder.encode(model.modelId(), StandardCharsets.UTF_8)
                    .replace("+", "%20") + "/count-tokens");
            SignedHttp.Reply reply = t.runtime.post(uri, request(model, body), Map.of(), TIMEOUT);
            JsonNode answer = UsageReading.tree(reply.body());
            if (reply.status() == 200 && answer.path("inputTokens").canConvertToLong()) {
                return answer.get("inputTokens").asLong();
            }
            if (reply.status() >= 400 && reply.status() < 500 && reply.status() != 429) {
                unsupported.add(model.key());
            }
        } catch (IOException | RuntimeException e) {
            // counted by the fallback below: an estimate now beats an exact count later
        }
        return fallback.inputTokens(model, body);
    }

    private static byte[] request(ModelConfig model, Payload body) throws IOException {
        ObjectNode root = UsageReading.JSON.createObjectNode();
        ObjectNode input = root.putObject("input");
        if (model.backend() == Backend.CONVERSE) {
            JsonNode converse = UsageReading.JSON.readTree(body.bytes());
            ObjectNode counted = input.putObject("converse");
            converse.fields().forEachRemaining(field -> {
                if (CONVERSE_COUNTED.contains(field.getKey())) {
                    counted.set(field.getKey(), field.getValue());
                }
            });
        } else {
            input.putObject("invokeModel").put("body", Base64.getEncoder().encodeToString(body.bytes()));
        }
        return UsageReading.JSON.writeValueAsBytes(root);
    }
}
