package dev.trafficshaper.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Byte-exact work on JSON objects: cut out a member's value exactly as it was written, or add a
 * member without touching a byte of the rest. This is how the shaper keeps its promise to send a
 * caller's request body as it came: a parse-and-serialize round trip would reorder keys, change
 * number spellings and escapes, and lose nothing a test would notice until a signature, a cache
 * key or a byte-for-byte comparison does.
 */
public final class RawJson {

    private static final JsonFactory JSON = new JsonFactory();

    private RawJson() {
    }

    /**
     * The bytes of the value of top-level member {@code name} of the object in {@code utf8},
     * exactly as written; empty when there is no such member.
     *
     * @throws IllegalArgumentException when the bytes are not a JSON object
     */
    public static Optional<byte[]> member(byte[] utf8, String name) {
        try (JsonParser parser = JSON.createParser(utf8)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                long start = parser.currentTokenLocation().getByteOffset();
                if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                    parser.skipChildren();
                } else {
                    parser.finishToken(); // a string is read lazily: move past its closing quote
                }
                long end = parser.currentLocation().getByteOffset();
                if (field.equals(name)) {
                    return Optional.of(Arrays.copyOfRange(utf8, (int) start, (int) end));
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getMessage(), e);
        }
    }

    /**
     * The object with {@code "name": valueJson} added as its first member; every other byte is
     * kept. The caller makes sure the object has no member of that name.
     *
     * @param valueJson a JSON value, e.g. {@code "\"flex\""} or {@code {"type":"flex"}}
     */
    public static byte[] withFirstMember(byte[] object, String name, String valueJson) {
        int open = 0;
        while (open < object.length && Character.isWhitespace(object[open])) {
            open++;
        }
        if (open >= object.length || object[open] != '{') {
            throw new IllegalArgumentException("not a JSON object");
        }
        int next = open + 1;
        while (next < object.length && Character.isWhitespace(object[next])) {
            next++;
        }
        boolean empty = next < object.length && object[next] == '}';
        ByteArrayOutputStream out = new ByteArrayOutputStream(object.length + name.length() + valueJson.length() + 8);
        out.write(object, 0, open + 1);
        out.writeBytes(quote(name).getBytes(StandardCharsets.UTF_8));
        out.write(':');
        out.writeBytes(valueJson.getBytes(StandardCharsets.UTF_8));
        if (!empty) {
            out.write(',');
        }
        out.write(object, open + 1, object.length - open - 1);
        return out.toByteArray();
    }

    /** A JSON string literal. */
    public static String quote(String text) {
        try {
            java.io.StringWriter writer = new java.io.StringWriter();
            try (com.fasterxml.jackson.core.JsonGenerator generator = JSON.createGenerator(writer)) {
                generator.writeString(text);
            }
            return writer.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
