package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.delivery.DeliverySchedule;
import dev.trafficshaper.model.ModelCatalog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Webhooks from the local server: queued when the request ends, tried on the delivery schedule
 * (shortened here to 3 attempts 200 ms apart) against a receiver on 127.0.0.1, their state in
 * {@code GET /v1/requests/{id}} as on AWS.
 */
class LocalWebhookDeliveryIT {

    private static final String MODELS = """
            {"models": {"small": {"modelId": "test.small-v1:0", "quotas": {"tpm": 1000000}, "maxTokens": 1000,
                                  "defaultDeadlineSeconds": 60}}}""";

    private final AtomicInteger failuresLeft = new AtomicInteger();
    private final List<String> deliveryIds = new CopyOnWriteArrayList<>();
    private HttpServer receiver;
    private LocalRuntime runtime;
    private LocalServer server;
    private Api api;

    @BeforeEach
    void start() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            deliveryIds.add(exchange.getRequestHeaders().getFirst("X-Shaper-Delivery-Id"));
            exchange.sendResponseHeaders(failuresLeft.getAndDecrement() > 0 ? 503 : 204, -1);
            exchange.close();
        });
        receiver.start();
        runtime = LocalRuntime.builder().catalog(ModelCatalog.parse(MODELS)).invoker(new ScriptedInvoker())
                .webhookSchedule(DeliverySchedule.of(3, Duration.ofMillis(200), Duration.ofMillis(200))).build();
        server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        api = new Api(server.baseUri());
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.close();
        receiver.stop(0);
    }

    @Test
    void aReceiverThatFailsTwiceGetsTheWebhookOnTheThirdAttemptAndGetShowsIt() {
        failuresLeft.set(2);
        String id = submit();

        JsonNode delivery = awaitSettled(id);

        assertThat(delivery.path("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.path("delivered").asBoolean()).isTrue();
        assertThat(delivery.path("lastStatus").asInt()).isEqualTo(204);
        assertThat(deliveryIds).containsExactly(id, id, id);
    }

    @Test
    void aReceiverThatAlwaysFailsEndsDeadLetteredAndGetShowsIt() {
        failuresLeft.set(Integer.MAX_VALUE);
        String id = submit();

        JsonNode delivery = awaitSettled(id);

        assertThat(delivery.path("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.path("deadLettered").asBoolean()).isTrue();
        assertThat(delivery.path("lastError").asText()).isEqualTo("HTTP 503");
        assertThat(runtime.webhooks().deadLettered()).containsExactly(id);
    }

    private String submit() {
        String callback = "\"callbackUrl\":\"http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook\",";
        Api.Answer submitted = api.submit(Api.body("small", callback, "hello", 100));
        assertThat(submitted.status()).as(submitted.json().toString()).isEqualTo(202);
        return submitted.json().path("requestId").asText();
    }

    private JsonNode awaitSettled(String id) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.status(id, null).json().path("delivery"),
                        d -> d.path("delivered").asBoolean() || d.path("deadLettered").asBoolean());
    }
}
