package dev.trafficshaper.loadtest.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.client.WebhookVerifier;
import dev.trafficshaper.local.LocalClock;
import dev.trafficshaper.threads.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Receives the shaper's webhooks on loopback and writes each verified result as the request's
 * terminal outcome line, timed when it arrived: the moment the application learns its answer.
 * A call with a bad signature is refused with 401 and counted, never recorded. Duplicate
 * deliveries are written as they come; the report keeps the first.
 *
 * <p>The signature's timestamp is checked against the run clock, which on a scaled run is the
 * clock the shaper signs with.
 */
public final class WebhookReceiver implements AutoCloseable {

    public static final String PATH = "/hook";
    private static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

    private final HttpServer server;
    private final ExecutorService executor;
    private final String secret;
    private final OutcomeSink sink;
    private final LocalClock clock;
    private final WebhookVerifier verifier = WebhookVerifier.create();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    private WebhookReceiver(HttpServer server, ExecutorService executor, String secret, OutcomeSink sink,
                            LocalClock clock) {
        this.server = server;
        this.executor = executor;
        this.secret = secret;
        this.sink = sink;
        this.clock = clock;
    }

    /** Listens on a free loopback port. */
    public static WebhookReceiver start(String secret, OutcomeSink sink, LocalClock clock) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for webhooks on loopback", e);
        }
        ExecutorService executor = DaemonThreads.boundedPool("loadtest-webhook", 16);
        WebhookReceiver receiver = new WebhookReceiver(server, executor, secret, sink, clock);
        server.createContext(PATH, receiver::handle);
        server.setExecutor(executor);
        server.start();
        return receiver;
    }

    /** The {@code callbackUrl} to submit with. */
    public URI callbackUrl() {
        InetSocketAddress address = server.getAddress();
        return URI.create("http://127.0.0.1:" + address.getPort() + PATH);
    }

    /** Verified webhook calls so far (duplicates included). */
    public long received() {
        return received.get();
    }

    /** Calls refused for a missing, stale or wrong signature. */
    public long refused() {
        return refused.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(MAX_BODY_BYTES + 1);
            }
            if (body.length > MAX_BODY_BYTES) {
                exchange.sendResponseHeaders(413, -1);
                return;
            }
            long now = clock.nowMillis();
            WebhookVerifier.Verdict verdict = verifier.verify(secret,
                    exchange.getRequestHeaders().getFirst(WebhookVerifier.TIMESTAMP_HEADER),
                    exchange.getRequestHeaders().getFirst(WebhookVerifier.SIGNATURE_HEADER), body,
                    Instant.ofEpochMilli(now));
            if (!verdict.isValid()) {
                refused.incrementAndGet();
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            received.incrementAndGet();
            Optional<OutcomeLine> line;
            try {
                JsonNode result = LoadTestJson.tree(new String(body, java.nio.charset.StandardCharsets.UTF_8));
                line = ShaperResults.line(result, now, OutcomeLine.FROM_WEBHOOK);
            } catch (UncheckedIOException e) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            line.ifPresent(sink::write);
            exchange.sendResponseHeaders(204, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        DaemonThreads.shutdown(executor, 1_000);
    }
}
