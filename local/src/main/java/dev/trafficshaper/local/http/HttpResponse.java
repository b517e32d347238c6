package dev.trafficshaper.local.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** One JSON answer: status, extra headers, body. Every answer the server writes is one of these. */
public record HttpResponse(int status, Map<String, String> headers, byte[] body) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public HttpResponse {
        headers = Map.copyOf(headers);
    }

    public static HttpResponse json(int status, String json) {
        return new HttpResponse(status, Map.of(), json.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code {"error": message}}, with {@code "field"} when {@code field} is not null. */
    public static HttpResponse error(int status, String message, String field) {
        ObjectNode node = JSON.createObjectNode();
        node.put("error", message);
        if (field != null) {
            node.put("field", field);
        }
        return json(status, node.toString());
    }

    public HttpResponse withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new HttpResponse(status, more, body);
    }
}
