package dev.trafficshaper.submission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The digest that tells a re-post of a {@code requestId} from a different request: SHA-256 of the
 * submitted body in a canonical form (object members sorted by name at every depth, no
 * whitespace), so that a client re-serialising the same request with its keys in another order or
 * other spacing still gets the request it made, and any change of value is a conflict. Numbers
 * keep the form they came in ({@code 1} and {@code 1.0} differ). The top-level {@code requestId}
 * is left out: it is the key the digest is stored under, and a client that first let the shaper
 * choose the id may re-post the same request naming it.
 */
public final class BodyDigest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BodyDigest() {
    }

    /** Lowercase hex SHA-256 of the canonical form of {@code body}, without its top-level {@code requestId}. */
    public static String of(JsonNode body) {
        JsonNode keyed = body;
        if (body.isObject() && body.has("requestId")) {
            keyed = body.deepCopy();
            ((ObjectNode) keyed).remove("requestId");
        }
        try {
            byte[] canonical = JSON.writeValueAsBytes(canonical(keyed));
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode canonical(JsonNode node) {
        if (node.isObject()) {
            List<Map.Entry<String, JsonNode>> members = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                members.add(it.next());
            }
            members.sort(Map.Entry.comparingByKey());
            ObjectNode sorted = JsonNodeFactory.instance.objectNode();
            members.forEach(member -> sorted.set(member.getKey(), canonical(member.getValue())));
            return sorted;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            node.forEach(element -> copy.add(canonical(element)));
            return copy;
        }
        return node;
    }
}
