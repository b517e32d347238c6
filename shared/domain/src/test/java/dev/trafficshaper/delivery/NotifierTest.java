package dev.trafficshaper.delivery;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NotifierTest {

    private static final byte[] SECRET = "webhook-secret".getBytes(StandardCharsets.UTF_8);
    private static final String LOCAL_HOOK = "http://127.0.0.1:9/hook";

    private final ShaperFixture shaper = new ShaperFixture();
    private final StatusService status = StatusService.create(shaper.catalog, shaper.requests, shaper.payloads,
            shaper.board);
    private final ScriptedTransport transport = new ScriptedTransport();
    private final List<String> events = new ArrayList<>();
    private final List<Long> pauses = new ArrayList<>();

    @Test
    void withoutACallbackPublishesOneEventAndCallsNoWebhook() throws Exception {
        RequestRecord done = succeeded("r1", null);

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.strict(), 3).deliver(done);

        assertThat(delivery).isEqualTo(new Notifier.Delivery("r1", true, 0, 0, null));
        assertThat(events).containsExactly(Notifier.EVENT_DETAIL_TYPE + " "
                + status.status("r1", ShaperFixture.TENANT, shaper.now()).orElseThrow().json());
        assertThat(transport.posts).isEmpty();
    }

    @Test
    void postsTheStatusBodySignedWithHmacSha256OverTimestampAndBody() throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK);
        shaper.clock.set(T0 + 12_345);
        transport.answer(204);

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.local(), 3).deliver("r1").orElseThrow();

        assertThat(delivery).isEqualTo(new Notifier.Delivery("r1", true, 1, 204, null));
        ScriptedTransport.Post post = transport.posts.get(0);
        assertThat(post.target()).isEqualTo(URI.create(LOCAL_HOOK));
        assertThat(post.body()).isEqualTo(status.view(done, shaper.now()).json());
        assertThat(post.headers()).containsEntry("X-Shaper-Timestamp", Long.toString((T0 + 12_345) / 1000))
                .containsEntry("X-Shaper-Request-Id", "r1");
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
        String expected = "sha256=" + HexFormat.of().formatHex(mac.doFinal(
                (post.headers().get("X-Shaper-Timestamp") + "." + post.body()).getBytes(StandardCharsets.UTF_8)));
        assertThat(post.headers().get("X-Shaper-Signature")).isEqualTo(expected);
        assertThat(events).hasSize(1);
    }

    @Test
    void theSignatureChangesWithTheSecretTheTimestampAndTheBody() {
        String base = WebhookSignature.sign(SECRET, 1_700_000_000, "{}");

        assertThat(WebhookSignature.sign("other".getBytes(StandardCharsets.UTF_8), 1_700_000_000, "{}"))
                .isNotEqualTo(base);
        assertThat(WebhookSignature.sign(SECRET, 1_700_000_001, "{}")).isNotEqualTo(base);
        assertThat(WebhookSignature.sign(SECRET, 1_700_000_000, "{ }")).isNotEqualTo(base);
        assertThat(base).matches("sha256=[0-9a-f]{64}");
    }

    @Test
    void retriesServerErrorsWithGrowingPausesUpToTheMaximumAttempts() throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK);
        transport.answer(503, 500, 502, 200);

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.local(), 3).deliver(done);

        assertThat(delivery).isEqualTo(new Notifier.Delivery("r1", true, 3, -1, "HTTP 502"));
        assertThat(transport.posts).hasSize(3);
        assertThat(pauses).containsExactly(1_000L, 2_000L);
        assertThat(events).hasSize(1);
    }

    @Test
    void stopsRetryingOnceTheWebhookAccepts() throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK);
        transport.answer(503, 200);

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.local(), 5).deliver(done);

        assertThat(delivery).isEqualTo(new Notifier.Delivery("r1", true, 2, 200, null));
        assertThat(pauses).containsExactly(1_000L);
        assertThat(transport.posts).extracting(ScriptedTransport.Post::body).containsOnly(transport.posts.get(0).body());
    }

    @Test
    void retriesATransportFailure() throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK);
        transport.fail(new IOException("connection refused"));
        transport.answer(200);

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.local(), 3).deliver(done);

        assertThat(delivery.webhookAttempts()).isEqualTo(2);
        assertThat(delivery.webhookStatus()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 410})
    void stopsAtAClientError(int code) throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK);
        transport.answer(code, 200);

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.local(), 3).deliver(done);

        assertThat(delivery).isEqualTo(new Notifier.Delivery("r1", true, 1, code, "HTTP " + code));
        assertThat(pauses).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 429})
    void retriesTimeoutAndTooManyRequests(int code) throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK);
        transport.answer(code, 200);

        assertThat(notifier(CallbackUrlPolicy.local(), 3).deliver(done).webhookAttempts()).isEqualTo(2);
    }

    @Test
    void strictModeRefusesALoopbackCallbackWithoutCallingIt() throws Exception {
        RequestRecord done = succeeded("r1", "https://127.0.0.1/hook");

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.strict(), 3).deliver(done);

        assertThat(delivery.webhookStatus()).isEqualTo(-1);
        assertThat(delivery.webhookAttempts()).isZero();
        assertThat(delivery.webhookError()).contains("loopback");
        assertThat(transport.posts).isEmpty();
        assertThat(events).hasSize(1);
    }

    @Test
    void strictModeRefusesANameThatResolvesToLoopbackWithoutCallingIt() throws Exception {
        // Needs a host name other than "localhost" that resolves to loopback without DNS, as a
        // machine's own name usually does through its hosts file.
        String host = InetAddress.getLocalHost().getHostName();
        assumeThat(host).isNotEqualToIgnoringCase("localhost");
        assumeThat(Arrays.stream(InetAddress.getAllByName(host)).anyMatch(InetAddress::isLoopbackAddress)).isTrue();
        RequestRecord done = succeeded("r1", "https://" + host + "/hook");

        Notifier.Delivery delivery = notifier(CallbackUrlPolicy.strict(), 3).deliver(done);

        assertThat(delivery.webhookError()).isEqualTo("callbackUrl resolves to a loopback address");
        assertThat(delivery.webhookStatus()).isEqualTo(-1);
        assertThat(transport.posts).isEmpty();
    }

    @Test
    void anUnknownRequestDeliversNothing() throws Exception {
        assertThat(notifier(CallbackUrlPolicy.local(), 3).deliver("nobody")).isEmpty();
        assertThat(events).isEmpty();
        assertThat(transport.posts).isEmpty();
    }

    @Test
    void needsAtLeastOneAttempt() {
        assertThatThrownBy(() -> notifier(CallbackUrlPolicy.local(), 0)).isInstanceOf(IllegalArgumentException.class);
    }

    private Notifier notifier(CallbackUrlPolicy policy, int maxAttempts) {
        return Notifier.builder().requests(shaper.requests).status(status).transport(transport)
                .events((type, detail) -> events.add(type + " " + detail)).callbacks(policy).secret(SECRET)
                .maxAttempts(maxAttempts).pause(pauses::add).clock(shaper.clock).build();
    }

    private RequestRecord succeeded(String requestId, String callbackUrl) {
        shaper.enqueue(shaper.newRequest(requestId, MODEL, T0 + 60_000).callbackUrl(callbackUrl).build());
        shaper.admit(requestId);
        shaper.invocations(new FakeModelInvoker()).process(requestId);
        return shaper.record(requestId);
    }

    /** A webhook receiver that answers from a script (200 when it runs out) and records every post. */
    private static final class ScriptedTransport implements WebhookTransport {
        record Post(URI target, Map<String, String> headers, String body) {
        }

        final List<Post> posts = new ArrayList<>();
        private final Deque<Object> script = new ArrayDeque<>();

        void answer(int... codes) {
            for (int code : codes) {
                script.add(code);
            }
        }

        void fail(Exception e) {
            script.add(e);
        }

        @Override
        public int post(URI target, Map<String, String> headers, String body) throws Exception {
            posts.add(new Post(target, Map.copyOf(headers), body));
            Object next = script.isEmpty() ? 200 : script.poll();
            if (next instanceof Exception e) {
                throw e;
            }
            return (Integer) next;
        }
    }
}
