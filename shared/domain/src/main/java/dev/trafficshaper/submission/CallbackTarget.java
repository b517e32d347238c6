package dev.trafficshaper.submission;

import java.net.InetAddress;
import java.net.URI;
import java.util.Objects;

/**
 * A webhook target after its check at delivery time: the URL, and the one address it resolved to
 * that passed the check. A transport connects to {@code address}, never to the name again, and
 * names {@code host} in the {@code Host} header and in TLS (server name and certificate check),
 * so a name that changes its answer between the check and the connection gains nothing.
 *
 * @param port the explicit port, or the scheme's default
 */
public record CallbackTarget(URI uri, String host, int port, InetAddress address) {

    public CallbackTarget {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(address, "address");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be in [1, 65535], was " + port);
        }
    }

    public boolean isHttps() {
        return "https".equalsIgnoreCase(uri.getScheme());
    }

    /** The {@code Host} header: the name, with the port when it is not the scheme's default. */
    public String hostHeader() {
        String name = host.contains(":") ? "[" + host + "]" : host;
        int defaultPort = isHttps() ? 443 : 80;
        return port == defaultPort ? name : name + ":" + port;
    }

    /** The path and query to request, {@code /} when the URL has none. */
    public String pathAndQuery() {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }
}
