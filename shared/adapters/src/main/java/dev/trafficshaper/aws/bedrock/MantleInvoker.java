package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.OutcomeClassifier;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * What the three bedrock-mantle APIs share: the body goes as it came to {@code https://bedrock-mantle.{region}.api.aws}
 * plus the API's path, signed for service {@code bedrock-mantle} (or with a Bedrock API key).
 * Each API's invoker reads its own usage and stop reason:
 *
 * <ul>
 *   <li>Chat Completions ({@code /v1/chat/completions}): {@code usage.prompt_tokens} (cached
 *       reads included, {@code prompt_tokens_details.cached_tokens}), {@code completion_tokens};
 *       {@code choices[0].finish_reason}.</li>
 *   <li>Responses ({@code /v1/responses}): {@code usage.input_tokens} (cached reads included,
 *       {@code input_tokens_details.cached_tokens}), {@code output_tokens}; {@code status}, or
 *       {@code incomplete_details.reason} when incomplete.</li>
 *   <li>Anthropic Messages ({@code /anthropic/v1/messages}, header {@code anthropic-version}):
 *       {@code usage.input_tokens}, {@code output_tokens}, {@code cache_read_input_tokens},
 *       {@code cache_creation_input_tokens}; {@code stop_reason}.</li>
 * </ul>
 * Errors are OpenAI-style {@code {"error": {"type", "code", "message"}}} or Anthropic-style
 * {@code {"type": "error", "error": {"type", "message"}}}, sorted by status
 * ({@link OutcomeClassifier#classifyMantle}).
 */
abstract class MantleInvoker implements ShapeInvoker {

    private final SignedHttp http;
    private final URI endpoint;

    MantleInvoker(SignedHttp http, URI endpoint) {
        this.http = http;
        this.endpoint = endpoint;
    }

    static MantleInvoker of(Backend backend, SignedHttp http, URI endpoint) {
        return switch (backend) {
            case MANTLE_CHAT_COMPLETIONS -> new ChatCompletionsInvoker(http, endpoint);
            case MANTLE_RESPONSES -> new ResponsesInvoker(http, endpoint);
            case MANTLE_MESSAGES -> new MessagesInvoker(http, endpoint);
            default -> throw new IllegalArgumentException(backend + " is not a bedrock-mantle API");
        };
    }

    /** The path prefix when the models file names none, e.g. {@code /v1}. */
    abstract String defaultPrefix();

    /** The operation's path after the prefix, e.g. {@code /chat/completions}. */
    abstract String operation();

    Map<String, String> headers() {
        return Map.of();
    }

    abstract TokenUsage usage(JsonNode usage);

    abstract String stopReason(JsonNode body);

    @Override
    public BedrockOutcome invoke(ModelConfig model, byte[] request, Duration timeout) {
        String prefix = model.backendSettings().pathPrefix() != null ? model.backendSettings().pathPrefix()
                : defaultPrefix();
        URI uri = endpoint.resolve(prefix + operation());
        SignedHttp.Reply reply;
        try {
            reply = http.post(uri, request, headers(), timeout);
        } catch (SignedHttp.TimedOut e) {
            return OutcomeClassifier.clientTimeout(e.getMessage());
        } catch (IOException e) {
            return OutcomeClassifier.connectionFailure(e);
        }
        JsonNode body = UsageReading.tree(reply.body());
        if (reply.status() / 100 != 2 || !body.isObject()) {
            JsonNode error = body.path("error");
            String type = error.path("type").isTextual() ? error.path("type").asText()
                    : error.path("code").asText(null);
            return OutcomeClassifier.classifyMantle(reply.status(), type, UsageReading.message(body, reply.body()));
        }
        return new BedrockOutcome.Succeeded(usage(body.path("usage")), stopReason(body),
                new String(reply.body(), StandardCharsets.UTF_8));
    }

}
