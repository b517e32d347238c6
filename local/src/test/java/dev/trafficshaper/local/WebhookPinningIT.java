package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.delivery.HttpWebhookTransport;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import dev.trafficshaper.submission.InvalidSubmissionException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook transport resolves a callback's name once, checks the answer and connects to that
 * address, keeping the name in the {@code Host} header. A receiver on loopback stands for the
 * target; names are resolved by a fake resolver, so no DNS is used and nothing leaves the machine.
 */
class WebhookPinningIT {

    private final List<String> hosts = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private HttpServer receiver;

    @BeforeEach
    void start() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        receiver.createContext("/", exchange -> {
            try (exchange) {
                hosts.add(exchange.getRequestHeaders().getFirst("Host") + " " + exchange.getRequestURI());
                bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                exchange.sendResponseHeaders(202, -1);
            }
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    @Test
    void connectsToTheAddressItCheckedUnderTheCallersName() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        CallbackUrlPolicy policy = CallbackUrlPolicy.local().resolvingWith(host -> {
            lookups.incrementAndGet();
            return List.of(InetAddress.getLoopbackAddress());
        });
        HttpWebhookTransport transport = new HttpWebhookTransport(Duration.ofSeconds(5), policy);
        int port = receiver.getAddress().getPort();

        int status = transport.post(URI.create("http://hooks.test:" + port + "/done?x=1"), Map.of("X-Test", "1"),
                "{\"ok\":true}");

        assertThat(status).isEqualTo(202);
        assertThat(lookups).as("one lookup per attempt").hasValue(1);
        assertThat(hosts).containsExactly("hooks.test:" + port + " /done?x=1");
        assertThat(bodies).containsExactly("{\"ok\":true}");
    }

    @Test
    void aNameThatNowResolvesToAForbiddenAddressIsNotCalled() {
        CallbackUrlPolicy strict = CallbackUrlPolicy.strict().resolvingWith(host -> List.of(
                InetAddress.getByName("127.0.0.1")));
        HttpWebhookTransport transport = new HttpWebhookTransport(Duration.ofSeconds(5), strict);

        assertThatThrownBy(() -> transport.post(URI.create("https://rebound.test:" + receiver.getAddress().getPort()
                + "/hook"), Map.of(), "{}")).isInstanceOf(InvalidSubmissionException.class)
                .hasMessageContaining("loopback");
        assertThat(hosts).isEmpty();
    }

    @Test
    void aNameThatDoesNotResolveIsNotCalled() {
        CallbackUrlPolicy local = CallbackUrlPolicy.local().resolvingWith(host -> {
            throw new UnknownHostException(host);
        });
        HttpWebhookTransport transport = new HttpWebhookTransport(Duration.ofSeconds(5), local);

        assertThatThrownBy(() -> transport.post(URI.create("http://gone.test/hook"), Map.of(), "{}"))
                .hasMessageContaining("does not resolve");
        assertThat(hosts).isEmpty();
    }
}
