package dev.trafficshaper.submission;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which webhook targets the shaper will call: https only, and never an address that
 * {@link ForbiddenAddresses} refuses (loopback, private, link-local and metadata, unique-local,
 * multicast, broadcast, unspecified, reserved, and every IPv6 form that embeds one of those).
 *
 * <p>Checked twice. At submission ({@link #check}) on the URL itself: scheme, port, no
 * credentials, the host as an IP literal, and every address a host name resolves to then (a name
 * that does not resolve yet passes; it cannot reach anything until it does). At delivery
 * ({@link #target}) the name is resolved once more, every answer is checked, and the transport
 * connects to the checked address itself, so a name cannot point somewhere else between the check
 * and the connection (DNS rebinding).
 *
 * <p>Only a canonical dotted quad counts as an IPv4 host. Browsers and C libraries read
 * {@code 2130706433}, {@code 0177.0.0.1}, {@code 0x7f.1} and {@code 127.1} as {@code 127.0.0.1};
 * rather than reproduce every reading, any host whose last label is a number is refused unless it
 * is written the one unambiguous way.
 *
 * <p>The local runtime allows http and loopback, so a developer can receive webhooks on their machine.
 */
public final class CallbackUrlPolicy {

    public static final int MAX_LENGTH = 2048;

    private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    private static final Pattern CANONICAL_IPV4 = Pattern.compile(OCTET + "(\\." + OCTET + "){3}");
    private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0x[0-9a-f]*");

    private final boolean localMode;
    private final AddressResolver resolver;

    private CallbackUrlPolicy(boolean localMode, AddressResolver resolver) {
        this.localMode = localMode;
        this.resolver = resolver;
    }

    /** https only, public addresses only: for deployments. Resolves with the machine's resolver. */
    public static CallbackUrlPolicy strict() {
        return new CallbackUrlPolicy(false, AddressResolver.system());
    }

    /** Also http and loopback targets: for the local runtime. */
    public static CallbackUrlPolicy local() {
        return new CallbackUrlPolicy(true, AddressResolver.system());
    }

    /** The same rules, resolving names with {@code value} (tests resolve without DNS). */
    public CallbackUrlPolicy resolvingWith(AddressResolver value) {
        return new CallbackUrlPolicy(localMode, value);
    }

    public boolean isLocalMode() {
        return localMode;
    }

    /**
     * The URL, if acceptable at submission.
     *
     * @throws InvalidSubmissionException naming {@code callbackUrl} otherwise
     */
    public URI check(String url) {
        Parsed parsed = parse(url);
        if (parsed.literal != null) {
            return parsed.uri;
        }
        List<InetAddress> addresses;
        try {
            addresses = resolver.resolve(parsed.host);
        } catch (UnknownHostException e) {
            return parsed.uri;
        }
        requireAllowed(addresses);
        return parsed.uri;
    }

    /**
     * The address to deliver to: the URL checked again, its name resolved once now, every answer
     * checked, the first one returned for the transport to connect to.
     *
     * @throws InvalidSubmissionException naming {@code callbackUrl} when it must not be called
     */
    public CallbackTarget target(String url) {
        Parsed parsed = parse(url);
        InetAddress address = parsed.literal;
        if (address == null) {
            List<InetAddress> addresses;
            try {
                addresses = resolver.resolve(parsed.host);
            } catch (UnknownHostException e) {
                throw invalid("host does not resolve: " + parsed.host);
            }
            if (addresses.isEmpty()) {
                throw invalid("host does not resolve: " + parsed.host);
            }
            requireAllowed(addresses);
            address = addresses.get(0);
        }
        int port = parsed.uri.getPort() != -1 ? parsed.uri.getPort()
                : "https".equalsIgnoreCase(parsed.uri.getScheme()) ? 443 : 80;
        return new CallbackTarget(parsed.uri, parsed.host, port, address);
    }

    /** Why the shaper must not deliver to {@code address}, or empty when it may. */
    public Optional<String> refusal(InetAddress address) {
        return ForbiddenAddresses.refusal(address, localMode);
    }

    private void requireAllowed(List<InetAddress> addresses) {
        for (InetAddress address : addresses) {
            refusal(address).ifPresent(reason -> {
                throw invalid("resolves to " + reason);
            });
        }
    }

    /** A URL that passed the checks that need no resolver; {@code literal} when the host is an IP. */
    private record Parsed(URI uri, String host, InetAddress literal) {
    }

    private Parsed parse(String url) {
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
        if (uri.getRawUserInfo() != null || (uri.getRawAuthority() != null && uri.getRawAuthority().contains("@"))) {
            throw invalid("must not carry credentials");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw invalid("must name a host (a name, a dotted-quad IPv4 address or a bracketed IPv6 address)");
        }
        if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65535)) {
            throw invalid("port must be between 1 and 65535, was " + uri.getPort());
        }
        if (host.startsWith("[")) {
            return new Parsed(uri, host.substring(1, host.length() - 1), ipv6Literal(host));
        }
        String name = host.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        String[] labels = name.split("\\.", -1);
        if (NUMERIC_LABEL.matcher(labels[labels.length - 1]).matches()) {
            if (!CANONICAL_IPV4.matcher(name).matches()) {
                throw invalid("host " + host + " is not a canonical IPv4 address (write it as four decimal"
                        + " numbers without leading zeros)");
            }
            InetAddress literal = numeric(name);
            refusal(literal).ifPresent(reason -> {
                throw invalid("must not point at " + reason);
            });
            return new Parsed(uri, name, literal);
        }
        if (!localMode && (name.equals("localhost") || name.endsWith(".localhost"))) {
            throw invalid("must not point at a loopback address");
        }
        return new Parsed(uri, name, null);
    }

    private InetAddress ipv6Literal(String bracketed) {
        String inner = bracketed.substring(1, bracketed.length() - 1);
        if (inner.contains("%")) {
            throw invalid("must not name an IPv6 zone");
        }
        InetAddress literal = numeric(inner);
        refusal(literal).ifPresent(reason -> {
            throw invalid("must not point at " + reason);
        });
        return literal;
    }

    /** Parses an IP literal; never performs a DNS lookup (the text is numeric). */
    private static InetAddress numeric(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw invalid("not a valid IP address: " + literal);
        }
    }

    private static InvalidSubmissionException invalid(String message) {
        return new InvalidSubmissionException("callbackUrl", "callbackUrl " + message);
    }
}
