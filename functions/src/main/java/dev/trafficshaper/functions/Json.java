package dev.trafficshaper.functions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/** Event payloads of the state machine's tasks arrive as maps; the services read JSON trees. */
public final class Json {

    public static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    public static JsonNode tree(Map<String, Object> event) {
        return MAPPER.valueToTree(event);
    }

    public static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("event field '" + field + "' is required");
        }
        return value.asText();
    }
}
