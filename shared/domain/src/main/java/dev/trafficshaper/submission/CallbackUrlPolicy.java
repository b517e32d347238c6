package dev.trafficshaper.submission;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Which webhook targets the shaper will call. A webhook is a request the shaper makes on a
 * caller's behalf, so without limits it is a way into the shaper's own network (server-side
 * request forgery): targets must be https and must not be loopback, private, link-local
 * (including the instance metadata address), unique-local, multicast or unspecified addresses.
 *
 * <p>Checked twice: at submission on the URL's literal host, and again before each delivery on
 * every address the host resolves to, since a name may point anywhere at delivery time.
 * The local runtime allows http and loopback, so a developer can receive webhooks on their machine.
 */
public final class CallbackUrlPolicy {

    public static final int MAX_LENGTH = 2048;

    private final boolean localMode;

    private CallbackUrlPolicy(boolean localMode) {
        this.localMode = localMode;
    }

    /** https only, public addresses only: for deployments. */
    public static CallbackUrlPolicy strict() {
        return new CallbackUrlPolicy(false);
    }

    /** Also http and loopback targets: for the local runtime. */
    public static CallbackUrlPolicy local() {
        return new CallbackUrlPolicy(true);
    }

    /**
     * The URL, if acceptable at submission.
     *
     * @throws InvalidSubmissionException naming {@code callbackUrl} otherwise
     */
    public URI check(String url) {
        if (url.length() > MAX_LENGTH) {
            throw invalid("at most " + MAX_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw invalid("not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean schemeAllowed = scheme.equals("https") || (localMode && scheme.equals("http"));
        if (!schemeAllowed) {
            throw invalid(localMode ? "must be an http or https URL" : "must be an https URL");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw invalid("must name a host");
        }
        if (uri.getUserInfo() != null) {
            throw invalid("must not carry credentials");
        }
        String bareHost = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        String lower = bareHost.toLowerCase(Locale.ROOT);
        if (!localMode && (lower.equals("localhost") || lower.endsWith(".localhost"))) {
            throw invalid("must not point at a loopback address");
        }
        literalAddress(bareHost).flatMap(this::refusal).ifPresent(reason -> {
            throw invalid("must not point at " + reason);
        });
        return uri;
    }

    /** Why the shaper must not deliver to {@code address}, or empty when it may. */
    public Optional<String> refusal(InetAddress address) {
        if (address.isLoopbackAddress()) {
            return localMode ? Optional.empty() : Optional.of("a loopback address");
        }
        if (address.isAnyLocalAddress()) {
            return Optional.of("an unspecified address");
        }
        if (address.isLinkLocalAddress()) {
            return Optional.of("a link-local address");
        }
        if (address.isSiteLocalAddress() || isUniqueLocal(address) || isCarrierGradeNat(address)) {
            return Optional.of("a private address");
        }
        if (address.isMulticastAddress()) {
            return Optional.of("a multicast address");
        }
        return Optional.empty();
    }

    private static boolean isUniqueLocal(InetAddress address) {
        return address instanceof Inet6Address && (address.getAddress()[0] & 0xfe) == 0xfc;
    }

    private static boolean isCarrierGradeNat(InetAddress address) {
        byte[] b = address.getAddress();
        return address instanceof Inet4Address && (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64;
    }

    /** The host as an address when it is an IP literal; never performs a DNS lookup. */
    private static Optional<InetAddress> literalAddress(String host) {
        boolean ipv4 = host.matches("[0-9.]+");
        boolean ipv6 = host.contains(":");
        if (!ipv4 && !ipv6) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(host));
        } catch (UnknownHostException e) {
            throw invalid("not a valid IP address: " + host);
        }
    }

    private static InvalidSubmissionException invalid(String message) {
        return new InvalidSubmissionException("callbackUrl", "callbackUrl " + message);
    }
}
