package dev.trafficshaper.local.http;

import dev.trafficshaper.threads.DaemonThreads;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small HTTP/1.1 server that answers everything in JSON, built to keep answering while some
 * clients misbehave. The JDK's server reads request heads on its worker threads, so a few dozen
 * connections that send half a request hold every worker and the server stops answering anyone;
 * it also answers malformed requests itself, in HTML. Here:
 *
 * <ul>
 *   <li>each connection has its own reader thread, and a connection limit bounds them: past
 *       {@code maxConnections} a new connection gets {@code 503} at once and is closed;</li>
 *   <li>every stage has a deadline, enforced by a reaper that closes the connection: the head
 *       must arrive within {@code headTimeout} of its first byte, a kept-alive connection may idle
 *       for {@code idleTimeout}, the body must arrive within {@code bodyTimeout} and the answer
 *       must be taken within {@code writeTimeout}; a client sending a byte at a time gains
 *       nothing;</li>
 *   <li>the handler runs on a bounded pool of {@code workers} only once the whole request is read,
 *       so a slow client never holds a worker; when the pool and its queue are full the answer
 *       is {@code 503} with {@code Retry-After};</li>
 *   <li>a request that cannot be read ({@link RequestReader}) gets its JSON error and the
 *       connection is closed.</li>
 * </ul>
 */
public final class JsonHttpServer implements AutoCloseable {

    /** Answers one request; runs on a worker thread. */
    @FunctionalInterface
    public interface Handler {
        HttpResponse handle(HttpRequest request);
    }

    private static final Map<Integer, String> REASONS = Map.ofEntries(Map.entry(200, "OK"),
            Map.entry(202, "Accepted"), Map.entry(400, "Bad Request"), Map.entry(403, "Forbidden"),
            Map.entry(404, "Not Found"), Map.entry(405, "Method Not Allowed"), Map.entry(409, "Conflict"),
            Map.entry(413, "Content Too Large"), Map.entry(415, "Unsupported Media Type"),
            Map.entry(429, "Too Many Requests"), Map.entry(431, "Request Header Fields Too Large"),
            Map.entry(500, "Internal Server Error"), Map.entry(503, "Service Unavailable"),
            Map.entry(504, "Gateway Timeout"), Map.entry(505, "HTTP Version Not Supported"));

    private final Builder settings;
    private final ServerSocket listener;
    private final ThreadPoolExecutor workers;
    private final ExecutorService connections = Executors.newCachedThreadPool(DaemonThreads.factory("http-conn"));
    private final ScheduledExecutorService reaper = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.factory("http-reaper"));
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger active = new AtomicInteger();
    private final Thread acceptor;
    private volatile boolean closed;

    private JsonHttpServer(Builder b) throws IOException {
        this.settings = b;
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(b.address, 512);
        this.workers = new ThreadPoolExecutor(b.workers, b.workers, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(b.workers * 8), DaemonThreads.factory(b.name));
        this.acceptor = DaemonThreads.factory(b.name + "-accept").newThread(this::acceptLoop);
        reaper.scheduleWithFixedDelay(this::reap, 100, 100, TimeUnit.MILLISECONDS);
        acceptor.start();
    }

    public static Builder builder() {
        return new Builder();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    /** Connections open now (for tests and diagnostics). */
    public int openConnections() {
        return active.get();
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // Closing is all that is wanted.
        }
        open.forEach(Connection::close);
        reaper.shutdownNow();
        connections.shutdownNow();
        DaemonThreads.shutdown(workers, 1_000);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (active.incrementAndGet() > settings.maxConnections) {
                active.decrementAndGet();
                refuseBusy(socket);
                continue;
            }
            Connection connection = new Connection(socket);
            open.add(connection);
            try {
                connections.execute(connection);
            } catch (RejectedExecutionException e) {
                connection.close();
            }
        }
    }

    private void refuseBusy(Socket socket) {
        try (socket) {
            socket.setSoTimeout(1_000);
            write(socket.getOutputStream(), HttpResponse.error(503, "too many open connections ("
                    + settings.maxConnections + "); try again shortly", null).withHeader("Retry-After", "1"), true,
                    false);
        } catch (IOException ignored) {
            // Nobody to tell.
        }
    }

    private void reap() {
        long now = System.nanoTime();
        for (Connection connection : open) {
            if (now - connection.deadline > 0) {
                connection.close();
            }
        }
    }

    /** One client connection: reads requests one after another, hands each to a worker, writes the answer. */
    private final class Connection implements Runnable {

        private final Socket socket;
        private volatile long deadline;

        Connection(Socket socket) {
            this.socket = socket;
            this.deadline = System.nanoTime() + settings.headTimeout.toNanos();
        }

        void within(Duration timeout) {
            deadline = System.nanoTime() + timeout.toNanos();
        }

        @Override
        public void run() {
            try {
                socket.setTcpNoDelay(true);
                var in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
                OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
                RequestReader reader = new RequestReader(in, out, settings.maxBodyBytes, settings.discardMaxBytes);
                RequestReader.Progress progress = new RequestReader.Progress() {
                    public void headStarted() { within(settings.headTimeout); }
                    public void bodyStarted() { within(settings.bodyTimeout); }
                };
                boolean first = true;
                while (!closed) {
                    if (!first) {
                        within(settings.idleTimeout);
                    }
                    first = false;
                    HttpRequest request;
                    try {
                        request = reader.read(progress);
                    } catch (MalformedRequestException e) {
                        within(settings.writeTimeout);
                        write(out, e.response(), true, false);
                        return;
                    }
                    if (request == null) {
                        return;
                    }
                    boolean keepAlive = !"close".equalsIgnoreCase(request.header("connection"));
                    HttpResponse response = answer(request);
                    within(settings.writeTimeout);
                    write(out, response, !keepAlive, request.method().equals("HEAD"));
                    if (!keepAlive) {
                        return;
                    }
                }
            } catch (IOException e) {
                // The client went away or a deadline closed the socket; there is nobody to answer.
            } finally {
                close();
            }
        }

        private HttpResponse answer(HttpRequest request) {
            within(settings.handlerTimeout);
            Future<HttpResponse> pending;
            try {
                pending = workers.submit(() -> settings.handler.handle(request));
            } catch (RejectedExecutionException e) {
                return HttpResponse.error(503, "the server is busy; try again shortly", null)
                        .withHeader("Retry-After", "1");
            }
            try {
                return pending.get(settings.handlerTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                return HttpResponse.error(503, "the request took too long to answer", null);
            } catch (ExecutionException e) {
                System.err.println("local server: " + request.method() + " " + request.rawPath() + " failed: "
                        + e.getCause());
                return HttpResponse.error(500, "internal error: " + e.getCause().getClass().getSimpleName(), null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return HttpResponse.error(503, "the server is stopping", null);
            }
        }

        void close() {
            if (open.remove(this)) {
                active.decrementAndGet();
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // Closing is all that is wanted.
            }
        }
    }

    private static void write(OutputStream out, HttpResponse response, boolean close, boolean headOnly)
            throws IOException {
        StringBuilder head = new StringBuilder();
        head.append("HTTP/1.1 ").append(response.status()).append(' ')
                .append(REASONS.getOrDefault(response.status(), "Status")).append("\r\n");
        head.append("Content-Type: application/json\r\n");
        head.append("Content-Length: ").append(response.body().length).append("\r\n");
        response.headers().forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        if (close) {
            head.append("Connection: close\r\n");
        }
        head.append("\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (!headOnly) {
            out.write(response.body());
        }
        out.flush();
    }

    public static final class Builder {
        private InetSocketAddress address;
        private Handler handler;
        private String name = "http";
        private int workers = 32;
        private int maxConnections = 256;
        private int maxBodyBytes = 1 << 20;
        private long discardMaxBytes = 64L << 20;
        private Duration headTimeout = Duration.ofSeconds(10);
        private Duration idleTimeout = Duration.ofSeconds(30);
        private Duration bodyTimeout = Duration.ofSeconds(60);
        private Duration handlerTimeout = Duration.ofSeconds(60);
        private Duration writeTimeout = Duration.ofSeconds(30);

        private Builder() {
        }

        public Builder address(InetSocketAddress value) { this.address = value; return this; }
        public Builder handler(Handler value) { this.handler = value; return this; }
        /** Prefix of the worker threads' names. */
        public Builder name(String value) { this.name = value; return this; }
        /** Threads that run the handler; default 32. */
        public Builder workers(int value) { this.workers = value; return this; }
        /** Connections served at once; default 256. */
        public Builder maxConnections(int value) { this.maxConnections = value; return this; }
        public Builder maxBodyBytes(int value) { this.maxBodyBytes = value; return this; }
        /** Largest body read and dropped past the limit so the client still receives its answer. */
        public Builder discardMaxBytes(long value) { this.discardMaxBytes = value; return this; }
        /** From a request's first byte to the end of its head; default 10 s. */
        public Builder headTimeout(Duration value) { this.headTimeout = value; return this; }
        /** A kept-alive connection between requests; default 30 s. */
        public Builder idleTimeout(Duration value) { this.idleTimeout = value; return this; }
        /** From the end of the head to the end of the body; default 60 s. */
        public Builder bodyTimeout(Duration value) { this.bodyTimeout = value; return this; }
        public Builder handlerTimeout(Duration value) { this.handlerTimeout = value; return this; }
        /** For the client to take the answer; default 30 s. */
        public Builder writeTimeout(Duration value) { this.writeTimeout = value; return this; }

        public JsonHttpServer start() {
            if (address == null || handler == null) {
                throw new IllegalStateException("address and handler are required");
            }
            if (workers < 1 || maxConnections < 1 || maxBodyBytes < 0) {
                throw new IllegalStateException("workers and maxConnections must be positive");
            }
            try {
                return new JsonHttpServer(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + address + ": " + e.getMessage(), e);
            }
        }
    }
}
