package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.client.OutcomeInbox;
import dev.trafficshaper.client.RequestStatus;
import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.client.Submission;
import dev.trafficshaper.client.WebhookVerifier;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Java client awaiting a request that waits about 250 s behind a backlog, against the real
 * local server over HTTP on 127.0.0.1: following the server's {@code Retry-After} (the request's
 * ETA) it reads the status at most five times, and with its outcome pushed by webhook it reads it
 * once or twice. A counting proxy between the client and the server counts the status reads.
 *
 * <p><b>Time.</b> The runtime, its pacer and the Bedrock simulator's meters share a
 * {@link LocalClock} running {@value #TIME_SCALE} times faster than the wall clock; the server
 * converts {@code Retry-After} to wall seconds, so the client, on the wall clock, waits what the
 * server means. A 250 s wait takes about {@code 250 / TIME_SCALE} s of wall time.
 */
class ShaperClientAwaitIT {

    static final double TIME_SCALE = 20;
    private static final int BACKLOG = 40;
    private static final long TARGET_WAIT_SECONDS = 250;
    private static final int MAX_TOKENS = 200;
    private static final String PROMPT = "Summarise the quarterly report in three short bullet points.";
    private static final String SECRET = "await-secret";

    private LocalClock clock;
    private BedrockSimulator bedrock;
    private LocalRuntime runtime;
    private LocalServer server;
    private CountingProxy proxy;
    private HttpServer webhooks;
    private ExecutorService webhookThreads;

    @BeforeEach
    void start() throws IOException {
        clock = LocalClock.scaled(TIME_SCALE);
        String converse = converse();
        // the backlog's reservations take TARGET_WAIT_SECONDS of the pacer's target to admit
        ModelConfig probe = ModelConfig.of("paced", "test.paced-v1:0", Quota.tokensPerMinute(1));
        long reservation = CharacterTokenEstimator.defaults().inputTokens(probe, Payload.json(converse)) + MAX_TOKENS;
        double target = 0.95;
        long tpm = Math.round(BACKLOG * reservation * 60.0 / (target * TARGET_WAIT_SECONDS));
        ModelCatalog catalog = ModelCatalog.parse("{\"models\":{\"paced\":{\"modelId\":\"test.paced-v1:0\","
                + "\"quotas\":{\"tpm\":" + tpm + "},\"maxTokens\":1000,\"targetUtilization\":" + target
                + ",\"defaultDeadlineSeconds\":1800,\"maxDeadlineSeconds\":3600}}}");
        bedrock = BedrockSimulator.builder().catalog(catalog).quotaModel(QuotaModel.SLIDING_WINDOW)
                .clock(clock.asClock()).latencyScale(1 / TIME_SCALE).seed(11).build().start();
        runtime = LocalRuntime.builder().catalog(catalog).bedrockEndpoint(bedrock.endpoint()).clock(clock)
                .webhookSecret(SECRET.getBytes(StandardCharsets.UTF_8)).build();
        server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        proxy = CountingProxy.start(server.baseUri());
    }

    @AfterEach
    void stop() {
        if (webhooks != null) {
            webhooks.stop(0);
            webhookThreads.shutdownNow();
        }
        proxy.close();
        server.close();
        runtime.close();
        bedrock.close();
    }

    @Test
    void awaitingA250SecondWaitByPollingReadsTheStatusAtMostFiveTimes() throws Exception {
        submitBacklog();

        try (ShaperClient client = ShaperClient.create(proxy.baseUri())) {
            RequestStatus status = client.submitAndAwait(Submission.text("paced", PROMPT, MAX_TOKENS))
                    .get(3 * wallSeconds(TARGET_WAIT_SECONDS) + 30, TimeUnit.SECONDS);

            assertThat(status.isSucceeded()).as(status.rawBody()).isTrue();
            long waitMillis = status.json().path("waitMillis").asLong();
            List<CountingProxy.Read> reads = proxy.statusReads(status.requestId());
            System.out.printf("client await by polling: waited %.1f s (run clock) in the queue, %d status reads,"
                    + " Retry-After (wall s) %s%n", waitMillis / 1000.0, reads.size(), reads);
            assertThat(waitMillis).as("the request waited behind the backlog")
                    .isGreaterThan(TARGET_WAIT_SECONDS * 1000 * 7 / 10);
            assertThat(reads).as("status reads").hasSizeLessThanOrEqualTo(5);
        }
    }

    @Test
    void awaitingA250SecondWaitWithTheOutcomePushedByWebhookReadsTheStatusAtMostTwice() throws Exception {
        OutcomeInbox inbox = OutcomeInbox.create();
        List<String> refused = new CopyOnWriteArrayList<>();
        String callbackUrl = startWebhookReceiver(inbox, refused);
        submitBacklog();

        try (ShaperClient client = ShaperClient.builder().baseUri(proxy.baseUri()).outcomes(inbox).build()) {
            Submission submission = Submission.text("paced", PROMPT, MAX_TOKENS).toBuilder()
                    .callbackUrl(callbackUrl).build();
            RequestStatus status = client.submitAndAwait(submission)
                    .get(3 * wallSeconds(TARGET_WAIT_SECONDS) + 30, TimeUnit.SECONDS);

            assertThat(status.isSucceeded()).as(status.rawBody()).isTrue();
            assertThat(status.outputText()).isPresent();
            long waitMillis = status.json().path("waitMillis").asLong();
            List<CountingProxy.Read> reads = proxy.statusReads(status.requestId());
            System.out.printf("client await with webhook: waited %.1f s (run clock) in the queue, %d status reads,"
                    + " Retry-After (wall s) %s%n", waitMillis / 1000.0, reads.size(), reads);
            assertThat(waitMillis).isGreaterThan(TARGET_WAIT_SECONDS * 1000 * 7 / 10);
            assertThat(refused).as("webhooks refused by the verifier").isEmpty();
            assertThat(reads).as("status reads").hasSizeLessThanOrEqualTo(2);
        }
    }

    /**
     * Submits the backlog straight to the server and waits until the drainer has published it, so
     * that the awaited request's first status read already carries its ETA.
     */
    private void submitBacklog() {
        ApiCalls direct = new ApiCalls(server.baseUri());
        String body = "{\"model\":\"paced\",\"converse\":" + converse() + "}";
        for (int i = 0; i < BACKLOG; i++) {
            assertThat(direct.post("/v1/requests", body).statusCode()).isEqualTo(202);
        }
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> direct.get("/v1/models").body().matches(
                        "(?s).*\"etaSeconds\":(1\\d\\d|2\\d\\d|3\\d\\d)[,}].*"));
    }

    private String startWebhookReceiver(OutcomeInbox inbox, List<String> refused) throws IOException {
        WebhookVerifier verifier = WebhookVerifier.create();
        webhookThreads = Executors.newFixedThreadPool(2);
        webhooks = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        webhooks.setExecutor(webhookThreads);
        webhooks.createContext("/hook", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                // signed on the run's clock, so checked against it
                WebhookVerifier.Verdict verdict = verifier.verify(SECRET,
                        exchange.getRequestHeaders().getFirst(WebhookVerifier.TIMESTAMP_HEADER),
                        exchange.getRequestHeaders().getFirst(WebhookVerifier.SIGNATURE_HEADER), body,
                        Instant.ofEpochMilli(clock.nowMillis()));
                if (!verdict.isValid()) {
                    refused.add(verdict.toString());
                    exchange.sendResponseHeaders(401, -1);
                    return;
                }
                inbox.deliverWebhook(new String(body, StandardCharsets.UTF_8));
                exchange.sendResponseHeaders(204, -1);
            }
        });
        webhooks.start();
        return "http://127.0.0.1:" + webhooks.getAddress().getPort() + "/hook";
    }

    private static long wallSeconds(long runSeconds) {
        return (long) Math.ceil(runSeconds / TIME_SCALE);
    }

    private static String converse() {
        return "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"" + PROMPT + "\"}]}],"
                + "\"inferenceConfig\":{\"maxTokens\":" + MAX_TOKENS + "}}";
    }

    /** Plain JDK HTTP to one base URI. */
    private static final class ApiCalls {
        private final URI base;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        ApiCalls(URI base) {
            this.base = base;
        }

        HttpResponse<String> post(String path, String json) {
            return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build());
        }

        HttpResponse<String> get(String path) {
            return send(HttpRequest.newBuilder(base.resolve(path)).GET().build());
        }

        private HttpResponse<String> send(HttpRequest request) {
            try {
                return http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new IllegalStateException(request.uri() + " failed", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * A forwarding proxy on 127.0.0.1 in front of the server: it passes each call through unchanged
     * and records every {@code GET /v1/requests/{id}} with the {@code Retry-After} it answered.
     */
    static final class CountingProxy implements AutoCloseable {

        /** One status read through the proxy: the id read, the HTTP status and the Retry-After (null: none). */
        record Read(String requestId, int status, String retryAfter) {
            @Override
            public String toString() {
                return status + (retryAfter == null ? "" : "/" + retryAfter);
            }
        }

        private static final List<String> FORWARDED_HEADERS = List.of("Content-Type", "Accept",
                LocalServer.TENANT_HEADER);
        private static final List<String> RETURNED_HEADERS = List.of("Content-Type", "Retry-After");

        private final HttpServer proxy;
        private final ExecutorService threads = Executors.newFixedThreadPool(4);
        private final URI target;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1).build();
        private final List<Read> reads = new CopyOnWriteArrayList<>();

        private CountingProxy(URI target) throws IOException {
            this.target = target;
            this.proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            proxy.setExecutor(threads);
            proxy.createContext("/", this::forward);
            proxy.start();
        }

        static CountingProxy start(URI target) throws IOException {
            return new CountingProxy(target);
        }

        URI baseUri() {
            return URI.create("http://127.0.0.1:" + proxy.getAddress().getPort());
        }

        List<Read> statusReads(String requestId) {
            return reads.stream().filter(read -> read.requestId().equals(requestId)).toList();
        }

        private void forward(HttpExchange exchange) throws IOException {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                String path = exchange.getRequestURI().getRawPath();
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target + path))
                        .timeout(Duration.ofSeconds(30))
                        .method(exchange.getRequestMethod(), body.length == 0
                                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
                for (String name : FORWARDED_HEADERS) {
                    String value = exchange.getRequestHeaders().getFirst(name);
                    if (value != null) {
                        request.header(name, value);
                    }
                }
                HttpResponse<byte[]> answer;
                try {
                    answer = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    exchange.sendResponseHeaders(502, -1);
                    return;
                }
                if (exchange.getRequestMethod().equals("GET") && path.startsWith("/v1/requests/")) {
                    reads.add(new Read(path.substring("/v1/requests/".length()), answer.statusCode(),
                            answer.headers().firstValue("Retry-After").orElse(null)));
                }
                for (String name : RETURNED_HEADERS) {
                    answer.headers().firstValue(name).ifPresent(value -> exchange.getResponseHeaders().set(name, value));
                }
                byte[] bytes = answer.body();
                exchange.sendResponseHeaders(answer.statusCode(), bytes.length == 0 ? -1 : bytes.length);
                if (bytes.length > 0) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(bytes);
                    }
                }
            }
        }

        @Override
        public void close() {
            proxy.stop(0);
            threads.shutdownNow();
        }
    }
}
