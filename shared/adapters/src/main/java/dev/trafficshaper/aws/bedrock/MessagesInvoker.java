package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.quota.TokenUsage;
import java.net.URI;
import java.util.Map;

/** Anthropic Messages on bedrock-mantle; cache reads and writes are reported apart from the input. */
final class MessagesInvoker extends MantleInvoker {

    static final String ANTHROPIC_VERSION = "2023-06-01";

    MessagesInvoker(SignedHttp http, URI endpoint) {
        super(http, endpoint);
    }

    @Override
    String defaultPrefix() {
        return "/anthropic/v1";
    }

    @Override
    String operation() {
        return "/messages";
    }

    @Override
    Map<String, String> headers() {
        return Map.of("anthropic-version", ANTHROPIC_VERSION);
    }

    @Override
    TokenUsage usage(JsonNode usage) {
        return new TokenUsage(UsageReading.count(usage, "input_tokens"), UsageReading.count(usage, "output_tokens"),
                UsageReading.count(usage, "cache_read_input_tokens"),
                UsageReading.count(usage, "cache_creation_input_tokens"));
    }

    @Override
    String stopReason(JsonNode body) {
        return body.path("stop_reason").asText("");
    }
}
