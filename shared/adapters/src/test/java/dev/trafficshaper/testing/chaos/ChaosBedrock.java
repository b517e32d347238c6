package dev.trafficshaper.testing.chaos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Bedrock endpoint in front of another (the simulator) that counts every call per request and
 * breaks the calls a {@link Plan} picks, on 127.0.0.1.
 *
 * <p>Why a front and not the simulator's own faults: the checks need to know, per request, how
 * many calls arrived and whether each may have run, and the simulator counts per model. A request
 * is recognised by the marker {@code [chaos:<requestId>]} in its prompt ({@link #marker}). Faults:
 * <ul>
 *   <li>{@link Fault#SERVER_ERROR}: a 503 {@code ServiceUnavailableException} answered at once, the
 *       call not forwarded (provably nothing ran);
 *   <li>{@link Fault#TIMEOUT}: forwarded (the generation runs and is billed), the answer held back
 *       for {@code holdMillis}, longer than the caller waits;
 *   <li>{@link Fault#BROKEN_CONNECTION}: forwarded, then the answer cut off after half its bytes.
 * </ul>
 * A forwarded call counts as {@link ChaosTally.CallKind#MAY_HAVE_RUN} unless the upstream
 * throttled it.
 */
public final class ChaosBedrock implements AutoCloseable {

    private static final Pattern MARKER = Pattern.compile("\\[chaos:([A-Za-z0-9._~-]+)]");

    public enum Fault { NONE, SERVER_ERROR, TIMEOUT, BROKEN_CONNECTION }

    /** Chooses the fault of the {@code attempt}-th call (1, 2, ...) of a request. */
    @FunctionalInterface
    public interface Plan {
        Plan NONE = (requestId, attempt) -> Fault.NONE;

        Fault fault(String requestId, int attempt);
    }

    private final URI upstream;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "chaos-bedrock");
        thread.setDaemon(true);
        return thread;
    });
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final AtomicInteger unmarked = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile ChaosTally tally;
    private volatile Plan plan = Plan.NONE;
    private volatile long holdMillis = 10_000;

    private ChaosBedrock(URI upstream) {
        this.upstream = upstream;
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::serve);
        server.setExecutor(threads);
    }

    /** Starts a front that forwards to {@code upstream}, e.g. a simulator's endpoint. */
    public static ChaosBedrock inFrontOf(URI upstream) {
        ChaosBedrock front = new ChaosBedrock(upstream);
        front.server.start();
        return front;
    }

    /** The text to put in a prompt so that the calls of {@code requestId} are counted for it. */
    public static String marker(String requestId) {
        return "[chaos:" + requestId + "]";
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Where calls are counted from now on, and which are broken. */
    public void run(ChaosTally tally, Plan plan, Duration hold) {
        this.tally = tally;
        this.plan = plan;
        this.holdMillis = hold.toMillis();
    }

    /** Calls received and not yet answered (forwarded, held, or being written back). */
    public int inFlight() {
        return inFlight.get();
    }

    /** Calls without a marker: none are expected. */
    public int unmarkedCalls() {
        return unmarked.get();
    }

    private void serve(HttpExchange exchange) throws IOException {
        inFlight.incrementAndGet();
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Matcher marker = MARKER.matcher(new String(body, StandardCharsets.UTF_8));
            if (!marker.find()) {
                unmarked.incrementAndGet();
                forwardAndAnswer(exchange, body);
                return;
            }
            String id = marker.group(1);
            ChaosTally current = tally;
            Fault fault = plan.fault(id, attempts.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet());
            if (fault != Fault.NONE && current != null) {
                current.fault();
            }
            if (fault == Fault.SERVER_ERROR) {
                record(current, id, ChaosTally.CallKind.DID_NOTHING);
                answer(exchange, 503, "ServiceUnavailableException", "{\"message\":\"injected: service unavailable\"}"
                        .getBytes(StandardCharsets.UTF_8), false);
                return;
            }
            HttpResponse<byte[]> answer = forward(exchange, body);
            String type = answer.headers().firstValue("x-amzn-ErrorType").orElse("");
            record(current, id, answer.statusCode() == 429 && type.startsWith("ThrottlingException")
                    ? ChaosTally.CallKind.DID_NOTHING : ChaosTally.CallKind.MAY_HAVE_RUN);
            if (fault == Fault.TIMEOUT) {
                sleep(holdMillis);
            }
            answer(exchange, answer.statusCode(), type.isEmpty() ? null : type, answer.body(),
                    fault == Fault.BROKEN_CONNECTION);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private static void record(ChaosTally tally, String id, ChaosTally.CallKind kind) {
        if (tally != null) {
            tally.call(id, kind);
        }
    }

    private void forwardAndAnswer(HttpExchange exchange, byte[] body) throws IOException, InterruptedException {
        HttpResponse<byte[]> answer = forward(exchange, body);
        answer(exchange, answer.statusCode(), answer.headers().firstValue("x-amzn-ErrorType").orElse(null),
                answer.body(), false);
    }

    private HttpResponse<byte[]> forward(HttpExchange exchange, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(upstream.resolve(exchange.getRequestURI().getRawPath()))
                .timeout(Duration.ofSeconds(60))
                .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
        String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static void answer(HttpExchange exchange, int status, String errorType, byte[] body, boolean cutOff)
            throws IOException {
        exchange.getResponseHeaders().put("Content-Type", List.of("application/json"));
        if (errorType != null) {
            exchange.getResponseHeaders().put("x-amzn-ErrorType", List.of(errorType));
        }
        exchange.sendResponseHeaders(status, body.length);
        OutputStream out = exchange.getResponseBody();
        if (cutOff) {
            out.write(body, 0, body.length / 2);
            out.flush();
            // Closing short of the declared length drops the connection: the caller sees it broken.
            return;
        }
        out.write(body);
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
