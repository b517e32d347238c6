package dev.trafficshaper.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real HTTP server on an ephemeral loopback port that answers each {@code METHOD path} with the
 * next scripted answer (500 when the script has run out) and records every exchange.
 */
public final class FakeShaperApi implements AutoCloseable {

    public record Answer(int status, String body, Map<String, String> headers) {
    }

    public record Exchange(String method, String path, Map<String, List<String>> headers, byte[] body) {
        public String header(String name) {
            return headers.entrySet().stream()
                    .filter(h -> h.getKey().equalsIgnoreCase(name))
                    .map(h -> h.getValue().get(0))
                    .findFirst().orElse(null);
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final Map<String, Deque<Answer>> script = new ConcurrentHashMap<>();
    private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
    private boolean closed;

    private FakeShaperApi(HttpServer server) {
        this.server = server;
    }

    public static FakeShaperApi start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        FakeShaperApi api = new FakeShaperApi(server);
        server.createContext("/", api::handle);
        server.start();
        return api;
    }

    public static Answer answer(int status, String body, String... headerNamesAndValues) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 0; i + 1 < headerNamesAndValues.length; i += 2) {
            headers.put(headerNamesAndValues[i], headerNamesAndValues[i + 1]);
        }
        return new Answer(status, body, headers);
    }

    public FakeShaperApi on(String method, String path, Answer... answers) {
        Deque<Answer> queue = script.computeIfAbsent(method + " " + path, key -> new ArrayDeque<>());
        synchronized (queue) {
            queue.addAll(List.of(answers));
        }
        return this;
    }

    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    public List<Exchange> exchanges() {
        return List.copyOf(exchanges);
    }

    public List<Exchange> exchanges(String method, String path) {
        return exchanges.stream().filter(e -> e.method().equals(method) && e.path().equals(path)).toList();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            server.stop(0);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getRawPath();
            exchanges.add(new Exchange(exchange.getRequestMethod(), path, Map.copyOf(exchange.getRequestHeaders()),
                    body));
            Answer answer = next(exchange.getRequestMethod() + " " + path);
            answer.headers().forEach(exchange.getResponseHeaders()::set);
            byte[] bytes = answer.body() == null ? new byte[0] : answer.body().getBytes(StandardCharsets.UTF_8);
            if (bytes.length > 0) {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
            }
            exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    private Answer next(String key) {
        Deque<Answer> queue = script.get(key);
        if (queue != null) {
            synchronized (queue) {
                if (!queue.isEmpty()) {
                    return queue.removeFirst();
                }
            }
        }
        return answer(500, "{\"message\":\"no scripted answer for " + key + "\"}");
    }
}
