package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.quota.TokenUsage;
import java.net.URI;

/** OpenAI Chat Completions on bedrock-mantle; {@code prompt_tokens} includes the cached reads. */
final class ChatCompletionsInvoker extends MantleInvoker {

    ChatCompletionsInvoker(SignedHttp http, URI endpoint) {
        super(http, endpoint);
    }

    @Override
    String defaultPrefix() {
        return "/v1";
    }

    @Override
    String operation() {
        return "/chat/completions";
    }

    @Override
    TokenUsage usage(JsonNode usage) {
        return UsageReading.withCachedInside(UsageReading.count(usage, "prompt_tokens"),
                UsageReading.count(usage, "completion_tokens"),
                UsageReading.count(usage.path("prompt_tokens_details"), "cached_tokens"));
    }

    @Override
    String stopReason(JsonNode body) {
        return body.path("choices").path(0).path("finish_reason").asText("");
    }
}
