package dev.trafficshaper.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A JSON object body (a Converse request or response), checked to be one well-formed object and
 * kept byte for byte. Construction is the validation: a {@code Payload} that exists can be stored.
 */
public final class Payload {

    private static final JsonFactory JSON = new JsonFactory();

    private final byte[] bytes;
    private final String sha256;

    private Payload(byte[] bytes) {
        this.bytes = bytes;
        this.sha256 = sha256(bytes);
    }

    /** @throws InvalidPayloadException when the text is not exactly one JSON object */
    public static Payload json(String text) {
        if (text == null) {
            throw new InvalidPayloadException("payload: required");
        }
        return json(text.getBytes(StandardCharsets.UTF_8));
    }

    /** @throws InvalidPayloadException when the bytes are not exactly one UTF-8 JSON object */
    public static Payload json(byte[] utf8) {
        if (utf8 == null || utf8.length == 0) {
            throw new InvalidPayloadException("payload: required");
        }
        byte[] copy = utf8.clone();
        requireSingleObject(copy);
        return new Payload(copy);
    }

    /** For reads: bytes that were validated when stored, checked against their digest instead. */
    public static Payload trusted(byte[] utf8, String expectedSha256) {
        Payload payload = new Payload(utf8.clone());
        if (!payload.sha256.equals(expectedSha256)) {
            throw new IllegalStateException("stored payload does not match its digest " + expectedSha256);
        }
        return payload;
    }

    private static void requireSingleObject(byte[] utf8) {
        try (JsonParser parser = JSON.createParser(utf8)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidPayloadException("payload: must be a JSON object");
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                throw new InvalidPayloadException("payload: unexpected content after the JSON object at line "
                        + parser.currentLocation().getLineNr());
            }
        } catch (JsonProcessingException e) {
            throw new InvalidPayloadException("payload: not valid JSON: " + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    public int size() {
        return bytes.length;
    }

    public String sha256() {
        return sha256;
    }

    public String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Payload that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "Payload[" + bytes.length + " bytes, sha256=" + sha256 + "]";
    }
}
