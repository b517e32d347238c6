package dev.trafficshaper.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.MissingNode;

/** Lenient reading of response bodies: a body that is empty or not JSON reads as a missing node. */
final class Json {

    static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private Json() {
    }

    static JsonNode parseLeniently(String body) {
        if (body == null || body.isBlank()) {
            return MissingNode.getInstance();
        }
        try {
            JsonNode node = MAPPER.readTree(body);
            return node == null ? MissingNode.getInstance() : node;
        } catch (JsonProcessingException e) {
            return MissingNode.getInstance();
        }
    }

    /** The field's text if it is a non-blank string (or a number, rendered as text), else null. */
    static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        if (value.isTextual()) {
            return value.asText().isBlank() ? null : value.asText();
        }
        return value.isNumber() ? value.asText() : null;
    }

    static boolean hasNumber(JsonNode node, String field) {
        return node.path(field).isNumber();
    }

    static long longOr(JsonNode node, String field, long fallback) {
        JsonNode value = node.path(field);
        return value.isNumber() ? value.asLong() : fallback;
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }
}
