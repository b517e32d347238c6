package dev.trafficshaper.client;

import java.net.URI;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A request as it will be sent, before signing: method, full URI, the headers the client sets,
 * and the exact body bytes (empty for a {@code GET}). The JDK sets {@code Host} and
 * {@code Content-Length} itself, from the URI and the body.
 */
public final class SignableRequest {

    private final String method;
    private final URI uri;
    private final Map<String, String> headers;
    private final byte[] body;

    public SignableRequest(String method, URI uri, Map<String, String> headers, byte[] body) {
        this.method = Objects.requireNonNull(method, "method");
        this.uri = Objects.requireNonNull(uri, "uri");
        TreeMap<String, String> sorted = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        sorted.putAll(Objects.requireNonNull(headers, "headers"));
        this.headers = Collections.unmodifiableMap(sorted);
        this.body = body == null ? new byte[0] : body.clone();
    }

    public String method() {
        return method;
    }

    public URI uri() {
        return uri;
    }

    /** The headers the client sets, keyed case-insensitively. */
    public Map<String, String> headers() {
        return headers;
    }

    /** A copy of the body bytes. */
    public byte[] body() {
        return body.clone();
    }

    @Override
    public String toString() {
        return method + " " + uri + " " + headers + " (" + body.length + " bytes)";
    }
}
