package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.quota.TokenUsage;
import java.net.URI;

/** OpenAI Responses on bedrock-mantle; {@code input_tokens} includes the cached reads. */
final class ResponsesInvoker extends MantleInvoker {

    ResponsesInvoker(SignedHttp http, URI endpoint) {
        super(http, endpoint);
    }

    @Override
    String defaultPrefix() {
        return "/v1";
    }

    @Override
    String operation() {
        return "/responses";
    }

    @Override
    TokenUsage usage(JsonNode usage) {
        return UsageReading.withCachedInside(UsageReading.count(usage, "input_tokens"),
                UsageReading.count(usage, "output_tokens"),
                UsageReading.count(usage.path("input_tokens_details"), "cached_tokens"));
    }

    /** {@code completed}, or why the answer is incomplete ({@code max_output_tokens}...). */
    @Override
    String stopReason(JsonNode body) {
        return "incomplete".equals(body.path("status").asText())
                ? body.path("incomplete_details").path("reason").asText("incomplete")
                : body.path("status").asText("");
    }
}
