package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Tokens Bedrock reported for a finished request. Counts the API left out are 0; a missing total
 * is input + output. Cache counts are read under the shaper's names ({@code cacheReadTokens},
 * {@code cacheWriteTokens}) or Bedrock's ({@code cacheReadInputTokens}, {@code cacheWriteInputTokens}).
 */
public record Usage(
        long inputTokens,
        long outputTokens,
        long totalTokens,
        long cacheReadTokens,
        long cacheWriteTokens) {

    static Usage from(JsonNode usage) {
        long input = Json.longOr(usage, "inputTokens", 0);
        long output = Json.longOr(usage, "outputTokens", 0);
        return new Usage(
                input,
                output,
                Json.longOr(usage, "totalTokens", input + output),
                Json.longOr(usage, "cacheReadTokens", Json.longOr(usage, "cacheReadInputTokens", 0)),
                Json.longOr(usage, "cacheWriteTokens", Json.longOr(usage, "cacheWriteInputTokens", 0)));
    }
}
