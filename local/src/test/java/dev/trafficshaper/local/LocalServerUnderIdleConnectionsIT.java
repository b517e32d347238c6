package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.trafficshaper.model.ModelCatalog;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server keeps answering while clients that send nothing, half a request head or half a
 * body stay attached: with more such connections than request threads, an ordinary request is
 * still answered within a bound, and past the connection limit a new connection is told so in
 * JSON instead of waiting.
 */
class LocalServerUnderIdleConnectionsIT {

    private static final String MODELS = """
            {"models": {"small": {"modelId": "test.small-v1:0", "quotas": {"tpm": 1000000}, "maxTokens": 1000}}}""";
    /** A bound far above a normal answer on loopback and far below any read or head timeout. */
    private static final long ANSWER_BOUND_MILLIS = 2_000;

    private final List<Socket> attached = new ArrayList<>();
    private ScriptedInvoker model;
    private LocalRuntime runtime;
    private LocalServer server;

    @BeforeEach
    void start() {
        model = new ScriptedInvoker();
        model.release();
        runtime = LocalRuntime.builder().catalog(ModelCatalog.parse(MODELS)).invoker(model).build();
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : attached) {
            socket.close();
        }
        if (server != null) {
            server.close();
        }
        runtime.close();
    }

    @Test
    void answersANormalRequestWhileFortyIdleHalfOpenAndSlowConnectionsAreAttached() throws Exception {
        server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        for (int i = 0; i < 40; i++) {
            attach("");
            attach("POST /v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl");
            attach("POST /v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n{\"requestId\":");
        }
        assertThat(server.openConnections()).isEqualTo(120);
        Api api = new Api(server.baseUri());

        long started = System.nanoTime();
        Api.Answer models = api.get("/v1/models");
        Api.Answer submitted = api.submit(Api.body("small", "\"requestId\":\"busy-1\",", "hi", 100));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("GET /v1/models + POST /v1/requests with 120 bad connections attached: " + tookMillis + " ms");

        assertThat(models.status()).isEqualTo(200);
        assertThat(submitted.status()).as(submitted.raw().body()).isEqualTo(202);
        assertThat(tookMillis).as("two answers while 120 bad connections are attached").isLessThan(ANSWER_BOUND_MILLIS);
    }

    @Test
    void aConnectionPastTheLimitIsToldInJsonAtOnce() throws Exception {
        server = LocalServer.start(runtime, new LocalServer.Options(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).threads(4).maxConnections(5));
        for (int i = 0; i < 5; i++) {
            attach("");
        }
        awaitOpen(5);

        try (Socket extra = new Socket(InetAddress.getLoopbackAddress(), server.baseUri().getPort())) {
            extra.setSoTimeout((int) ANSWER_BOUND_MILLIS);
            extra.getOutputStream().write("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            RawResponse answer = RawResponse.read(extra.getInputStream());

            assertThat(answer.status()).as(answer.text()).isEqualTo(503);
            assertThat(answer.head()).containsIgnoringCase("content-type: application/json")
                    .containsIgnoringCase("retry-after: 1");
            assertThat(answer.body()).contains("\"error\"");
        }
        attached.remove(0).close();
        awaitOpen(4);
        assertThat(new Api(server.baseUri()).get("/v1/models").status()).isEqualTo(200);
    }

    @Test
    void keepsAConnectionAliveAcrossRequests() throws Exception {
        server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.baseUri().getPort())) {
            socket.setSoTimeout(5_000);
            for (int i = 0; i < 3; i++) {
                socket.getOutputStream().write("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(RawResponse.read(socket.getInputStream()).status()).isEqualTo(200);
            }
        }
    }

    private void attach(String sent) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.baseUri().getPort());
        attached.add(socket);
        if (!sent.isEmpty()) {
            OutputStream out = socket.getOutputStream();
            out.write(sent.getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
        if (attached.size() % 3 == 0 || sent.isEmpty()) {
            awaitOpen(attached.size());
        }
    }

    /** Waits until the server has taken (or let go of) the connections; accepting is asynchronous. */
    private void awaitOpen(int connections) {
        await().atMost(Duration.ofMillis(ANSWER_BOUND_MILLIS)).pollInterval(Duration.ofMillis(10))
                .until(() -> server.openConnections() == connections);
    }
}
