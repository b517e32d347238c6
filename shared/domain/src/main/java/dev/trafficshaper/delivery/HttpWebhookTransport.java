package dev.trafficshaper.delivery;

import dev.trafficshaper.submission.CallbackTarget;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import dev.trafficshaper.threads.DaemonThreads;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Webhooks as one HTTP/1.1 POST per attempt, on a connection to the address the callback rules
 * checked just before ({@link CallbackUrlPolicy#target}): the name is resolved once, and the
 * connection goes to that answer, not to a second lookup a rebinding name could change. The
 * {@code Host} header, the TLS server name and the certificate check all use the name.
 *
 * <p>Never follows redirects (a redirect could lead inside); only the status line is read. The
 * connection must be made within the connect timeout (a receiver that is down or drops packets
 * costs only that), and the whole attempt (connect, TLS, write, status line) within the attempt
 * timeout (a receiver that accepts and then hangs costs only that), so a dead or slow receiver
 * holds its sender briefly and the attempt is tried again later from the queue.
 */
public final class HttpWebhookTransport implements WebhookTransport {

    private static final int MAX_STATUS_LINE = 8 * 1024;
    /** Closes a connection still open at its attempt's deadline: a socket write has no timeout of its own. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.factory("webhook-watchdog"));

    private final Duration connectTimeout;
    private final Duration timeout;
    private final CallbackUrlPolicy callbacks;
    private final SSLSocketFactory tls;

    /** One timeout for the connection and for the whole attempt. */
    public HttpWebhookTransport(Duration timeout, CallbackUrlPolicy callbacks) {
        this(timeout, timeout, callbacks);
    }

    /** {@code connectTimeout} for the connection, {@code attemptTimeout} for the whole attempt (at least as long). */
    public HttpWebhookTransport(Duration connectTimeout, Duration attemptTimeout, CallbackUrlPolicy callbacks) {
        this(connectTimeout, attemptTimeout, callbacks, (SSLSocketFactory) SSLSocketFactory.getDefault());
    }

    HttpWebhookTransport(Duration timeout, CallbackUrlPolicy callbacks, SSLSocketFactory tls) {
        this(timeout, timeout, callbacks, tls);
    }

    private HttpWebhookTransport(Duration connectTimeout, Duration attemptTimeout, CallbackUrlPolicy callbacks,
                                 SSLSocketFactory tls) {
        if (connectTimeout.isNegative() || connectTimeout.isZero() || attemptTimeout.compareTo(connectTimeout) < 0) {
            throw new IllegalArgumentException("need 0 < connectTimeout <= attemptTimeout, were " + connectTimeout
                    + " and " + attemptTimeout);
        }
        this.connectTimeout = connectTimeout;
        this.timeout = attemptTimeout;
        this.callbacks = callbacks;
        this.tls = tls;
    }

    @Override
    public int post(URI url, Map<String, String> headers, String body) throws IOException {
        CallbackTarget target = callbacks.target(url.toString());
        long deadline = System.nanoTime() + timeout.toNanos();
        Socket raw = new Socket();
        ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> closeQuietly(raw), timeout.toMillis(),
                TimeUnit.MILLISECONDS);
        try (raw) {
            raw.connect(new InetSocketAddress(target.address(), target.port()),
                    (int) Math.min(connectTimeout.toMillis(), remainingMillis(deadline)));
            raw.setSoTimeout(remainingMillis(deadline));
            Socket socket = target.isHttps() ? secure(raw, target) : raw;
            OutputStream out = socket.getOutputStream();
            out.write(head(target, headers, body.getBytes(StandardCharsets.UTF_8).length));
            out.write(body.getBytes(StandardCharsets.UTF_8));
            out.flush();
            socket.setSoTimeout(remainingMillis(deadline));
            return statusCode(new BufferedInputStream(socket.getInputStream()));
        } finally {
            watchdog.cancel(false);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing is all that is wanted; the attempt fails with the socket.
        }
    }

    private Socket secure(Socket raw, CallbackTarget target) throws IOException {
        SSLSocket socket = (SSLSocket) tls.createSocket(raw, target.host(), target.port(), true);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        if (!target.host().contains(":") && !Character.isDigit(target.host().charAt(target.host().length() - 1))) {
            parameters.setServerNames(List.of(new SNIHostName(target.host())));
        }
        socket.setSSLParameters(parameters);
        socket.startHandshake();
        return socket;
    }

    private static byte[] head(CallbackTarget target, Map<String, String> headers, int length) {
        StringBuilder head = new StringBuilder();
        head.append("POST ").append(target.pathAndQuery()).append(" HTTP/1.1\r\n");
        head.append("Host: ").append(target.hostHeader()).append("\r\n");
        head.append("Content-Type: application/json\r\n");
        head.append("Content-Length: ").append(length).append("\r\n");
        head.append("Connection: close\r\n");
        headers.forEach((name, value) -> {
            if (name.matches("[A-Za-z0-9-]+") && value.chars().noneMatch(c -> c < 0x20 || c == 0x7f)) {
                head.append(name).append(": ").append(value).append("\r\n");
            } else {
                throw new IllegalArgumentException("unusable webhook header " + name);
            }
        });
        head.append("\r\n");
        return head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static int statusCode(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (line.size() >= MAX_STATUS_LINE) {
                throw new IOException("webhook receiver sent an overlong status line");
            }
            line.write(c);
        }
        String status = line.toString(StandardCharsets.ISO_8859_1).strip();
        String[] parts = status.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || !parts[1].matches("[0-9]{3}")) {
            throw new IOException("webhook receiver did not answer HTTP: '" + status + "'");
        }
        return Integer.parseInt(parts[1]);
    }

    private static int remainingMillis(long deadlineNanos) throws SocketTimeoutException {
        long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("webhook attempt took longer than its timeout");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }
}
