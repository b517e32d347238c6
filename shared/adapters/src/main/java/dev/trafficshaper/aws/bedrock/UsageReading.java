package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.quota.TokenUsage;
import java.io.IOException;

/** Reading answers: counts that are absent are zero, never guessed. */
final class UsageReading {

    static final ObjectMapper JSON = new ObjectMapper();

    private UsageReading() {
    }

    static JsonNode tree(byte[] body) {
        try {
            JsonNode node = JSON.readTree(body);
            return node == null ? JSON.createObjectNode() : node;
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    /** Whether {@code body} is one whole JSON object (an answer cut off on its way is not). */
    static boolean isWholeObject(byte[] body) {
        try {
            JsonNode node = JSON.readTree(body);
            return node != null && node.isObject();
        } catch (IOException e) {
            return false;
        }
    }

    static long count(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.canConvertToLong() ? Math.max(0, value.asLong()) : 0;
    }

    /** Usage that states its input including cached reads: the reads are split out. */
    static TokenUsage withCachedInside(long inputIncludingCached, long output, long cachedRead) {
        long cached = Math.min(cachedRead, inputIncludingCached);
        return new TokenUsage(inputIncludingCached - cached, output, cached, 0);
    }

    /** The text of the error an answer carries, for the record. */
    static String message(JsonNode body, byte[] raw) {
        for (JsonNode candidate : new JsonNode[] {body.path("error").path("message"), body.path("message"),
                body.path("Message")}) {
            if (candidate.isTextual()) {
                return candidate.asText();
            }
        }
        String text = new String(raw, java.nio.charset.StandardCharsets.UTF_8);
        return text.length() > 500 ? text.substring(0, 500) : text;
    }
}
