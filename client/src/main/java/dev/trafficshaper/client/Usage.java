package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Tokens Bedrock reported for a finished request. Counts the API left out are 0; a missing total
 * is input + output.
 */
public record Usage(
        long inputTokens,
        long outputTokens,
        long totalTokens,
        long cacheReadInputTokens,
        long cacheWriteInputTokens) {

    static Usage from(JsonNode usage) {
        long input = Json.longOr(usage, "inputTokens", 0);
        long output = Json.longOr(usage, "outputTokens", 0);
        return new Usage(
                input,
                output,
                Json.longOr(usage, "totalTokens", input + output),
                Json.longOr(usage, "cacheReadInputTokens", 0),
                Json.longOr(usage, "cacheWriteInputTokens", 0));
    }
}
