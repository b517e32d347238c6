package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.model.ModelCatalog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One tenant's receiver that does not answer does not delay another tenant's webhooks: two
 * receivers on loopback, the slow one holding every webhook it gets until the test ends, the fast
 * one answering at once. With one shared pool of delivery threads the slow receiver's webhooks
 * took every thread and the fast tenant's waited behind them.
 */
class WebhookIsolationIT {

    private static final String MODELS = """
            {"models": {"small": {"modelId": "test.small-v1:0", "quotas": {"tpm": 10000000}, "maxTokens": 1000}}}""";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CountDownLatch slowReleased = new CountDownLatch(1);
    private final List<String> slowReceived = new CopyOnWriteArrayList<>();
    private final List<String> fastReceived = new CopyOnWriteArrayList<>();
    private final ExecutorService receiverThreads = Executors.newCachedThreadPool();
    private HttpServer slow;
    private HttpServer fast;
    private LocalRuntime runtime;
    private LocalServer server;

    @AfterEach
    void stop() {
        slowReleased.countDown();
        if (server != null) {
            server.close();
        }
        if (runtime != null) {
            runtime.close();
        }
        slow.stop(0);
        fast.stop(0);
        receiverThreads.shutdownNow();
    }

    @Test
    void aReceiverThatHoldsItsWebhooksDoesNotDelayAnotherTenants() throws Exception {
        slow = receiver(slowReceived, true);
        fast = receiver(fastReceived, false);
        ScriptedInvoker model = new ScriptedInvoker();
        model.release();
        runtime = LocalRuntime.builder().catalog(ModelCatalog.parse(MODELS)).invoker(model).build();
        server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Api api = new Api(server.baseUri());

        for (int i = 1; i <= 6; i++) {
            assertThat(api.submit(body("slow-" + i, slow), "tenant-slow").status()).isEqualTo(202);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> slowReceived.size() >= 2);
        long started = System.nanoTime();
        for (int i = 1; i <= 8; i++) {
            assertThat(api.submit(body("fast-" + i, fast), "tenant-fast").status()).isEqualTo(202);
        }

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> fastReceived.size() == 8);
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("8 webhooks to the fast receiver while the slow one holds its own: " + tookMillis + " ms");

        assertThat(fastReceived).containsExactlyInAnyOrder("fast-1", "fast-2", "fast-3", "fast-4", "fast-5", "fast-6",
                "fast-7", "fast-8");
        assertThat(slowReceived).as("the slow receiver holds at most its own two slots").hasSize(2);
    }

    private String body(String requestId, HttpServer receiver) {
        return Api.body("small", "\"requestId\":\"" + requestId + "\",\"callbackUrl\":\"http://127.0.0.1:"
                + receiver.getAddress().getPort() + "/hook\",", "hi", 100);
    }

    private HttpServer receiver(List<String> received, boolean holds) throws IOException {
        HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        receiver.createContext("/hook", exchange -> {
            try (exchange) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                received.add(JSON.readTree(body).path("requestId").asText());
                if (holds) {
                    slowReleased.await(30, TimeUnit.SECONDS);
                }
                exchange.sendResponseHeaders(204, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        receiver.setExecutor(receiverThreads);
        receiver.start();
        return receiver;
    }
}
