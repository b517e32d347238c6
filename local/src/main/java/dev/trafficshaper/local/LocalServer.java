package dev.trafficshaper.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.delivery.StatusService.StatusView;
import dev.trafficshaper.lifecycle.RequestIdConflictException;
import dev.trafficshaper.lifecycle.SubmissionRefusedException;
import dev.trafficshaper.lifecycle.SubmissionService.Accepted;
import dev.trafficshaper.local.http.HttpRequest;
import dev.trafficshaper.local.http.HttpResponse;
import dev.trafficshaper.local.http.JsonHttpServer;
import dev.trafficshaper.request.Identifiers;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.submission.InvalidSubmissionException;
import dev.trafficshaper.submission.JsonContentType;
import dev.trafficshaper.submission.RequestIds;
import dev.trafficshaper.submission.UnsupportedContentTypeException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shaper's HTTP API (design brief §6) served from a {@link LocalRuntime}: {@code POST
 * /v1/requests}, {@code GET /v1/requests/{id}} and {@code GET /v1/models}, with the same status
 * codes and bodies as the API on AWS, over a {@link JsonHttpServer} that keeps answering while
 * idle, half-open or slow clients are attached and answers every malformed request in JSON.
 *
 * <p><b>Tenant.</b> Locally the tenant is the {@value #TENANT_HEADER} header, or {@value #DEFAULT_TENANT}
 * without one, so several callers can be tried on one machine. This is a local convenience only:
 * on AWS the tenant is the caller's IAM principal, and no header can choose it.
 *
 * <p>Bodies are read up to the runtime's limit and no further: a larger body is refused with
 * {@code 400}, and nothing is stored. {@code statusUrl}s are built on the configured public base
 * (by default the address the server listens on), never on the request's {@code Host} header. The
 * server listens on loopback unless given another address.
 */
public final class LocalServer implements AutoCloseable {

    public static final String TENANT_HEADER = "X-Shaper-Tenant";
    public static final String DEFAULT_TENANT = "local";
    static final String REQUESTS_PATH = "/v1/requests";
    static final String MODELS_PATH = "/v1/models";
    private static final Pattern REQUEST_PATH = Pattern.compile("/v1/requests/([^/]+)");
    private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9._:-]+");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Largest body read (and dropped) past the limit so that the client still receives its 400. */
    static final long DISCARD_MAX_BYTES = 64L * 1024 * 1024;

    private final LocalRuntime runtime;
    private final JsonHttpServer server;
    private final URI baseUri;
    private final URI publicBaseUri;

    private LocalServer(LocalRuntime runtime, Options options) {
        this.runtime = runtime;
        this.server = JsonHttpServer.builder().address(options.address).handler(this::handle).name("shaper-http")
                .workers(options.threads).maxConnections(options.maxConnections)
                .maxBodyBytes(runtime.maxBodyBytes()).discardMaxBytes(DISCARD_MAX_BYTES)
                .start();
        InetSocketAddress bound = server.address();
        InetAddress address = bound.getAddress();
        String host = address.isAnyLocalAddress() ? "127.0.0.1" : address.getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        this.baseUri = URI.create("http://" + host + ":" + bound.getPort());
        this.publicBaseUri = options.publicBaseUri != null ? options.publicBaseUri : baseUri;
    }

    /** Starts serving on {@code address} (port 0 picks a free one) with a pool of 32 request threads. */
    public static LocalServer start(LocalRuntime runtime, InetSocketAddress address) {
        return start(runtime, address, 32);
    }

    public static LocalServer start(LocalRuntime runtime, InetSocketAddress address, int threads) {
        return start(runtime, new Options(address).threads(threads));
    }

    public static LocalServer start(LocalRuntime runtime, Options options) {
        return new LocalServer(runtime, options);
    }

    /** Where and how to serve. */
    public static final class Options {
        private final InetSocketAddress address;
        private int threads = 32;
        private int maxConnections = 256;
        private URI publicBaseUri;

        public Options(InetSocketAddress address) {
            this.address = address;
        }

        /** Threads that answer requests (a slow client holds none); default 32. */
        public Options threads(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("threads must be at least 1");
            }
            this.threads = value;
            return this;
        }

        /** Connections served at once; a connection past this gets 503 at once. Default 256. */
        public Options maxConnections(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("maxConnections must be at least 1");
            }
            this.maxConnections = value;
            return this;
        }

        /** The base of every {@code statusUrl} (e.g. behind a proxy); default the listening address. */
        public Options publicBaseUri(URI value) {
            String text = value.toString();
            this.publicBaseUri = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
            return this;
        }
    }

    /** Where the API is, e.g. {@code http://127.0.0.1:8080}. */
    public URI baseUri() {
        return baseUri;
    }

    /** Connections open now. */
    int openConnections() {
        return server.openConnections();
    }

    /** Stops accepting connections, lets exchanges in progress finish for up to a second. */
    @Override
    public void close() {
        server.close();
    }

    private HttpResponse handle(HttpRequest request) {
        String path = request.rawPath();
        String method = request.method();
        if (path.equals(REQUESTS_PATH)) {
            return method.equals("POST") ? submit(request) : notAllowed(method, "POST");
        }
        if (path.equals(MODELS_PATH)) {
            return method.equals("GET") ? HttpResponse.json(200, runtime.status().models(runtime.nowMillis()))
                    : notAllowed(method, "GET");
        }
        Matcher id = REQUEST_PATH.matcher(path);
        if (id.matches()) {
            return method.equals("GET") ? status(request, id.group(1)) : notAllowed(method, "GET");
        }
        return HttpResponse.error(404, "no such resource: " + printable(path) + "; the API serves POST " + REQUESTS_PATH
                + ", GET " + REQUESTS_PATH + "/{id} and GET " + MODELS_PATH, null);
    }

    private static HttpResponse notAllowed(String method, String allowed) {
        return HttpResponse.error(405, "method " + method + " is not allowed here; use " + allowed, null)
                .withHeader("Allow", allowed);
    }

    private HttpResponse submit(HttpRequest request) {
        String tenant;
        try {
            tenant = tenant(request);
            JsonContentType.require(request.header("Content-Type"));
        } catch (InvalidSubmissionException e) {
            return HttpResponse.error(400, e.getMessage(), e.field());
        } catch (UnsupportedContentTypeException e) {
            return HttpResponse.error(415, e.getMessage(), "Content-Type");
        }
        long now = runtime.nowMillis();
        RequestRecord record;
        try {
            Accepted accepted = runtime.submissions().submit(tenant, request.body(), now);
            record = accepted.isNew() ? runtime.admissions().admit(accepted.ticket(), null, now) : accepted.existing();
        } catch (InvalidSubmissionException e) {
            return HttpResponse.error(400, e.getMessage(), e.field());
        } catch (SubmissionRefusedException e) {
            return HttpResponse.error(429, e.getMessage(), null)
                    .withHeader("Retry-After", Long.toString(wallSeconds(e.retryAfterSeconds())));
        } catch (RequestIdConflictException e) {
            return HttpResponse.error(409, e.getMessage(), "requestId");
        }
        ObjectNode answer = JSON.createObjectNode();
        answer.put("requestId", record.requestId());
        answer.put("status", record.state().name());
        answer.put("statusUrl", publicBaseUri + REQUESTS_PATH + "/" + record.requestId());
        return HttpResponse.json(202, answer.toString());
    }

    private HttpResponse status(HttpRequest request, String rawId) {
        String tenant;
        try {
            tenant = tenant(request);
        } catch (InvalidSubmissionException e) {
            return HttpResponse.error(400, e.getMessage(), e.field());
        }
        String requestId = decode(rawId);
        Optional<StatusView> view = requestId != null && RequestIds.isValid(requestId)
                ? runtime.status().status(requestId, tenant, runtime.nowMillis())
                : Optional.empty();
        if (view.isEmpty()) {
            return HttpResponse.error(404, "no request with id '" + printable(requestId != null ? requestId : rawId)
                    + "'", null);
        }
        long retryAfter = view.get().retryAfterSeconds();
        HttpResponse response = HttpResponse.json(view.get().httpStatus(), view.get().json());
        return retryAfter > 0 ? response.withHeader("Retry-After", Long.toString(wallSeconds(retryAfter))) : response;
    }

    /** Seconds of the runtime's clock as wall seconds, for {@code Retry-After}; at least 1. */
    private long wallSeconds(long runtimeSeconds) {
        long wallMillis = runtime.clock().toWallMillis(runtimeSeconds * 1000);
        return Math.max(1, (wallMillis + 999) / 1000);
    }

    private static String decode(String rawSegment) {
        try {
            return new URI("/" + rawSegment).getPath().substring(1);
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /**
     * The caller's tenant. Taken as sent, not trimmed: a value with a CR, LF or any other control
     * character, or outside the id characters, is refused rather than repaired.
     */
    private static String tenant(HttpRequest request) {
        String header = request.header(TENANT_HEADER);
        if (header == null) {
            return DEFAULT_TENANT;
        }
        if (header.isEmpty() || header.length() > Identifiers.MAX_LENGTH || !TENANT.matcher(header).matches()) {
            throw new InvalidSubmissionException(TENANT_HEADER, TENANT_HEADER + ": 1 to " + Identifiers.MAX_LENGTH
                    + " letters, digits and . _ : - (no spaces or control characters)");
        }
        return header;
    }

    private static String printable(String text) {
        String clipped = text.length() > 200 ? text.substring(0, 200) + "..." : text;
        return clipped.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
