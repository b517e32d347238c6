package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;

/** Shared JSON reading with Bedrock-style validation messages. */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static JsonNode readObject(byte[] body) {
        if (body.length == 0) {
            throw BedrockFailure.validation("the request body is empty");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (java.io.IOException e) {
            throw BedrockFailure.validation("the request body is not valid JSON: " + shortMessage(e));
        }
        if (node == null || !node.isObject()) {
            throw BedrockFailure.validation("the request body must be a JSON object");
        }
        return node;
    }

    static byte[] write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A positive integer field, or 0 when absent. */
    static long optionalPositive(JsonNode parent, String field, String path) {
        JsonNode value = parent.get(field);
        if (value == null || value.isNull() || value.isMissingNode()) {
            return 0;
        }
        if (!value.canConvertToExactIntegral() || !value.canConvertToLong() || value.asLong() < 1) {
            throw BedrockFailure.validation(path + ": must be a positive integer, was " + value);
        }
        return value.asLong();
    }

    private static String shortMessage(java.io.IOException e) {
        return e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
    }
}
