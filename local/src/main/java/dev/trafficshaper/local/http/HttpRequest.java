package dev.trafficshaper.local.http;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One request as read off the wire: the method, the raw path and query of the request target,
 * the headers (names in lower case, in the order received) and the whole body.
 */
public record HttpRequest(String method, String rawPath, String rawQuery, Map<String, List<String>> headers,
                          byte[] body) {

    public HttpRequest {
        headers = Map.copyOf(headers);
    }

    /** The first value of a header, by name in any case; null when absent. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
