package dev.trafficshaper.local;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.delivery.StatusService.StatusView;
import dev.trafficshaper.lifecycle.RequestIdConflictException;
import dev.trafficshaper.lifecycle.SubmissionRefusedException;
import dev.trafficshaper.lifecycle.SubmissionService.Accepted;
import dev.trafficshaper.request.Identifiers;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.submission.InvalidSubmissionException;
import dev.trafficshaper.threads.DaemonThreads;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shaper's HTTP API (design brief §6) served from a {@link LocalRuntime}, on the JDK's HTTP
 * server: {@code POST /v1/requests}, {@code GET /v1/requests/{id}} and {@code GET /v1/models}, with
 * the same status codes and bodies as the API on AWS.
 *
 * <p><b>Tenant.</b> Locally the tenant is the {@value #TENANT_HEADER} header, or {@value #DEFAULT_TENANT}
 * without one, so several callers can be tried on one machine. This is a local convenience only:
 * on AWS the tenant is the caller's IAM principal, and no header can choose it.
 *
 * <p>Bodies are read up to the runtime's limit and no further: a larger body is refused with
 * {@code 400} before it is buffered, and nothing is stored. The server listens on loopback unless
 * given another address.
 */
public final class LocalServer implements AutoCloseable {

    public static final String TENANT_HEADER = "X-Shaper-Tenant";
    public static final String DEFAULT_TENANT = "local";
    static final String REQUESTS_PATH = "/v1/requests";
    static final String MODELS_PATH = "/v1/models";
    private static final Pattern REQUEST_PATH = Pattern.compile("/v1/requests/([^/]+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int READ_CHUNK = 64 * 1024;
    /** Largest body read (and dropped) past the limit so that the client still receives its 400. */
    static final long DISCARD_MAX_BYTES = 64L * 1024 * 1024;

    private final LocalRuntime runtime;
    private final HttpServer server;
    private final ExecutorService executor;
    private final URI baseUri;

    private LocalServer(LocalRuntime runtime, HttpServer server, ExecutorService executor) {
        this.runtime = runtime;
        this.server = server;
        this.executor = executor;
        InetSocketAddress bound = server.getAddress();
        InetAddress address = bound.getAddress();
        String host = address.isAnyLocalAddress() ? "127.0.0.1" : address.getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        this.baseUri = URI.create("http://" + host + ":" + bound.getPort());
    }

    /** Starts serving on {@code address} (port 0 picks a free one) with a pool of 32 request threads. */
    public static LocalServer start(LocalRuntime runtime, InetSocketAddress address) {
        return start(runtime, address, 32);
    }

    public static LocalServer start(LocalRuntime runtime, InetSocketAddress address, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1");
        }
        HttpServer server;
        try {
            server = HttpServer.create(address, 512);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + address + ": " + e.getMessage(), e);
        }
        ExecutorService executor = DaemonThreads.boundedPool("shaper-http", threads);
        LocalServer local = new LocalServer(runtime, server, executor);
        server.createContext("/", local::handle);
        server.setExecutor(executor);
        server.start();
        return local;
    }

    /** Where the API is, e.g. {@code http://127.0.0.1:8080}. */
    public URI baseUri() {
        return baseUri;
    }

    /** Stops accepting connections, lets exchanges in progress finish for up to a second. */
    @Override
    public void close() {
        server.stop(0);
        DaemonThreads.shutdown(executor, 1_000);
    }

    private void handle(HttpExchange exchange) {
        try {
            route(exchange);
        } catch (IOException e) {
            // The client went away; there is nobody to answer.
        } catch (RuntimeException e) {
            System.err.println("local server: " + exchange.getRequestMethod() + " " + exchange.getRequestURI()
                    + " failed: " + e);
            try {
                send(exchange, 500, error("internal error: " + e.getClass().getSimpleName()), 0);
            } catch (IOException | RuntimeException ignored) {
                // The response may already have started; the connection is closed either way.
            }
        } finally {
            exchange.close();
        }
    }

    private void route(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        String method = exchange.getRequestMethod();
        if (path.equals(REQUESTS_PATH)) {
            if (requireMethod(exchange, method, "POST")) {
                submit(exchange);
            }
            return;
        }
        if (path.equals(MODELS_PATH)) {
            if (requireMethod(exchange, method, "GET")) {
                send(exchange, 200, runtime.status().models(runtime.nowMillis()), 0);
            }
            return;
        }
        Matcher request = REQUEST_PATH.matcher(path);
        if (request.matches()) {
            if (requireMethod(exchange, method, "GET")) {
                status(exchange, request.group(1));
            }
            return;
        }
        send(exchange, 404, error("no such resource: " + path + "; the API serves POST " + REQUESTS_PATH + ", GET "
                + REQUESTS_PATH + "/{id} and GET " + MODELS_PATH), 0);
    }

    private static boolean requireMethod(HttpExchange exchange, String method, String allowed) throws IOException {
        if (method.equals(allowed)) {
            return true;
        }
        exchange.getResponseHeaders().set("Allow", allowed);
        send(exchange, 405, error("method " + method + " is not allowed here; use " + allowed), 0);
        return false;
    }

    private void submit(HttpExchange exchange) throws IOException {
        Optional<String> tenant = tenant(exchange);
        if (tenant.isEmpty()) {
            return;
        }
        byte[] body = readBody(exchange);
        if (body == null) {
            return;
        }
        long now = runtime.nowMillis();
        RequestRecord record;
        try {
            Accepted accepted = runtime.submissions().submit(tenant.get(), body, now);
            record = accepted.isNew() ? runtime.admissions().admit(accepted.ticket(), null, now) : accepted.existing();
        } catch (InvalidSubmissionException e) {
            send(exchange, 400, invalid(e.getMessage(), e.field()), 0);
            return;
        } catch (SubmissionRefusedException e) {
            send(exchange, 429, error(e.getMessage()), wallSeconds(e.retryAfterSeconds()));
            return;
        } catch (RequestIdConflictException e) {
            send(exchange, 409, invalid(e.getMessage(), "requestId"), 0);
            return;
        }
        ObjectNode answer = JSON.createObjectNode();
        answer.put("requestId", record.requestId());
        answer.put("status", record.state().name());
        answer.put("statusUrl", statusUrl(exchange, record.requestId()));
        send(exchange, 202, write(answer), 0);
    }

    private void status(HttpExchange exchange, String rawId) throws IOException {
        Optional<String> tenant = tenant(exchange);
        if (tenant.isEmpty()) {
            return;
        }
        String requestId = decode(rawId);
        Optional<StatusView> view = requestId != null && isUsableId(requestId)
                ? runtime.status().status(requestId, tenant.get(), runtime.nowMillis())
                : Optional.empty();
        if (view.isEmpty()) {
            send(exchange, 404, error("no request with id '" + (requestId != null ? requestId : rawId) + "'"), 0);
            return;
        }
        long retryAfter = view.get().retryAfterSeconds();
        send(exchange, view.get().httpStatus(), view.get().json(), retryAfter > 0 ? wallSeconds(retryAfter) : 0);
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

    /** The caller's tenant; answers 400 itself and returns empty when the header is unusable. */
    private static Optional<String> tenant(HttpExchange exchange) throws IOException {
        String header = exchange.getRequestHeaders().getFirst(TENANT_HEADER);
        if (header == null) {
            return Optional.of(DEFAULT_TENANT);
        }
        try {
            return Optional.of(Identifiers.require(TENANT_HEADER, header.strip()));
        } catch (IllegalArgumentException e) {
            send(exchange, 400, invalid(e.getMessage(), TENANT_HEADER), 0);
            return Optional.empty();
        }
    }

    private static boolean isUsableId(String requestId) {
        try {
            Identifiers.require("requestId", requestId);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The body, read up to the limit; null after answering 400 when it is larger. Nothing past the
     * limit is kept. The excess is read and dropped up to {@link #DISCARD_MAX_BYTES} in all, so that
     * an ordinary client, still sending, receives the answer instead of a reset connection; a body
     * declared larger than that is answered at once and its connection closed unread.
     */
    private byte[] readBody(HttpExchange exchange) throws IOException {
        int limit = runtime.maxBodyBytes();
        InputStream in = exchange.getRequestBody();
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.strip());
            } catch (NumberFormatException e) {
                length = -1;
            }
            if (length > limit) {
                boolean drained = length <= DISCARD_MAX_BYTES && discard(in, DISCARD_MAX_BYTES);
                tooLarge(exchange, length + " bytes", limit, drained);
                return null;
            }
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        byte[] chunk = new byte[READ_CHUNK];
        int read;
        while ((read = in.read(chunk, 0, Math.min(chunk.length, limit + 1 - buffer.size()))) > 0) {
            buffer.write(chunk, 0, read);
            if (buffer.size() > limit) {
                boolean drained = discard(in, DISCARD_MAX_BYTES - buffer.size());
                tooLarge(exchange, "more than " + limit + " bytes", limit, drained);
                return null;
            }
        }
        return buffer.toByteArray();
    }

    /** Reads and drops at most {@code atMost} bytes; whether the body ended within them. */
    private static boolean discard(InputStream in, long atMost) throws IOException {
        byte[] chunk = new byte[READ_CHUNK];
        long left = atMost;
        while (left > 0) {
            int read = in.read(chunk, 0, (int) Math.min(chunk.length, left));
            if (read < 0) {
                return true;
            }
            left -= read;
        }
        return in.read() < 0;
    }

    private static void tooLarge(HttpExchange exchange, String size, int limit, boolean drained) throws IOException {
        if (!drained) {
            exchange.getResponseHeaders().set("Connection", "close");
        }
        send(exchange, 400, invalid("request body is " + size + ", over the limit of " + limit
                + " bytes; nothing was stored", ""), 0);
    }

    private String statusUrl(HttpExchange exchange, String requestId) {
        String path = REQUESTS_PATH + "/" + requestId;
        String host = exchange.getRequestHeaders().getFirst("Host");
        if (host != null && host.matches("[A-Za-z0-9.:\\[\\]-]+")) {
            return "http://" + host + path;
        }
        return baseUri + path;
    }

    /** Sends a JSON answer with {@code Retry-After} when {@code retryAfterSeconds} is positive. */
    private static void send(HttpExchange exchange, int status, String json, long retryAfterSeconds)
            throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        if (retryAfterSeconds > 0) {
            exchange.getResponseHeaders().set("Retry-After", Long.toString(retryAfterSeconds));
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String error(String message) {
        ObjectNode node = JSON.createObjectNode();
        node.put("error", message);
        return write(node);
    }

    private static String invalid(String message, String field) {
        ObjectNode node = JSON.createObjectNode();
        node.put("error", message);
        node.put("field", field);
        return write(node);
    }

    private static String write(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
