package dev.trafficshaper.delivery;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookSenderTest {

    private static final byte[] SECRET = "webhook-secret".getBytes(StandardCharsets.UTF_8);
    private static final String LOCAL_HOOK = "http://127.0.0.1:9/hook";
    private static final DeliverySchedule THREE = DeliverySchedule.of(3, Duration.ofSeconds(30), Duration.ofHours(2));

    private final ShaperFixture shaper = new ShaperFixture();
    private final StatusService status = StatusService.create(shaper.catalog, shaper.requests, shaper.payloads,
            shaper.board);
    private final ScriptedTransport transport = new ScriptedTransport();

    @Test
    void postsTheStatusBodySignedWithHmacSha256OverTimestampAndBodyWithTheDeliveryId() throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK);
        shaper.clock.set(T0 + 12_345);
        transport.answer(204);

        WebhookSender.Attempt attempt = sender(CallbackUrlPolicy.local()).attempt("r1", 1, shaper.now());

        assertThat(attempt.next()).isEqualTo(WebhookSender.Next.DONE);
        assertThat(attempt.state()).isEqualTo(new DeliveryState(1, 204, null, T0 + 12_345, 0, true, false));
        ScriptedTransport.Post post = transport.posts.get(0);
        assertThat(post.target()).isEqualTo(URI.create(LOCAL_HOOK));
        assertThat(post.body()).isEqualTo(status.view(done, shaper.now()).json());
        assertThat(post.headers()).containsEntry("X-Shaper-Timestamp", Long.toString((T0 + 12_345) / 1000))
                .containsEntry("X-Shaper-Request-Id", "r1")
                .containsEntry("X-Shaper-Delivery-Id", "r1")
                .containsEntry("X-Shaper-Delivery-Attempt", "1");
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
        String expected = "sha256=" + HexFormat.of().formatHex(mac.doFinal(
                (post.headers().get("X-Shaper-Timestamp") + "." + post.body()).getBytes(StandardCharsets.UTF_8)));
        assertThat(post.headers().get("X-Shaper-Signature")).isEqualTo(expected);
        assertThat(shaper.record("r1").delivery()).isEqualTo(attempt.state());
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
    void aFailedAttemptIsRecordedAndRetriedAfterTheSchedulesPauseWithTheSameKeyAndBody() {
        succeeded("r1", LOCAL_HOOK);
        transport.answer(503, 500, 200);
        WebhookSender sender = sender(CallbackUrlPolicy.local());

        WebhookSender.Attempt first = sender.attempt("r1", 1, T0);
        assertThat(first.next()).isEqualTo(WebhookSender.Next.RETRY);
        assertThat(first.retryAfterMillis()).isEqualTo(30_000);
        assertThat(shaper.record("r1").delivery())
                .isEqualTo(new DeliveryState(1, 503, "HTTP 503", T0, T0 + 30_000, false, false));

        WebhookSender.Attempt second = sender.attempt("r1", 2, T0 + 30_000);
        assertThat(second.retryAfterMillis()).isEqualTo(60_000);
        WebhookSender.Attempt third = sender.attempt("r1", 3, T0 + 90_000);

        assertThat(third.next()).isEqualTo(WebhookSender.Next.DONE);
        assertThat(shaper.record("r1").delivery())
                .isEqualTo(new DeliveryState(3, 200, null, T0 + 90_000, 0, true, false));
        assertThat(transport.posts).extracting(post -> post.headers().get("X-Shaper-Delivery-Id"))
                .containsExactly("r1", "r1", "r1");
        assertThat(transport.posts).extracting(ScriptedTransport.Post::body).containsOnly(transport.posts.get(0).body());
    }

    @Test
    void theLastScheduledAttemptThatFailsDeadLettersTheWebhook() {
        succeeded("r1", LOCAL_HOOK);
        transport.answer(502, 502, 502);
        WebhookSender sender = sender(CallbackUrlPolicy.local());
        sender.attempt("r1", 1, T0);
        sender.attempt("r1", 2, T0 + 30_000);

        WebhookSender.Attempt last = sender.attempt("r1", 3, T0 + 90_000);

        assertThat(last.next()).isEqualTo(WebhookSender.Next.DEAD_LETTER);
        assertThat(shaper.record("r1").delivery())
                .isEqualTo(new DeliveryState(3, 502, "HTTP 502", T0 + 90_000, 0, false, true));
    }

    @Test
    void aTransportFailureIsRecordedWithoutAStatusAndRetried() {
        succeeded("r1", LOCAL_HOOK);
        transport.fail(new IOException("connection refused"));

        WebhookSender.Attempt attempt = sender(CallbackUrlPolicy.local()).attempt("r1", 1, T0);

        assertThat(attempt.next()).isEqualTo(WebhookSender.Next.RETRY);
        assertThat(attempt.state().lastStatus()).isZero();
        assertThat(attempt.state().lastError()).isEqualTo("IOException: connection refused");
    }

    @Test
    void aWebhookThatCannotBeRenderedIsRecordedAsAFailedAttemptWithoutAPostAndRetried() {
        succeeded("r1", LOCAL_HOOK);
        StatusService unreadable = StatusService.create(shaper.catalog, shaper.requests, new PayloadStore() {
            @Override
            public PayloadRef put(String requestId, PayloadKind kind, Payload payload, long expiresAtMillis) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<Payload> get(PayloadRef ref, long nowMillis) {
                throw new IllegalStateException("result object unreadable");
            }
        }, shaper.board);
        WebhookSender sender = WebhookSender.builder().requests(shaper.requests).status(unreadable)
                .transport(transport).callbacks(CallbackUrlPolicy.local()).secret(SECRET).schedule(THREE).build();

        WebhookSender.Attempt attempt = sender.attempt("r1", 1, T0);

        assertThat(transport.posts).isEmpty();
        assertThat(attempt.next()).isEqualTo(WebhookSender.Next.RETRY);
        assertThat(shaper.record("r1").delivery()).isEqualTo(new DeliveryState(1, 0,
                "webhook not rendered: IllegalStateException: result object unreadable", T0, T0 + 30_000, false, false));
    }

    @Test
    void anAttemptThatFailedOutrightIsRecordedAndItsLastOneDeadLettersTheWebhookVisibly() {
        succeeded("r1", LOCAL_HOOK);
        WebhookSender sender = sender(CallbackUrlPolicy.local());

        WebhookSender.Attempt first = sender.failedOutright("r1", 1, "webhook attempt failed: table unreachable", T0);
        assertThat(first.next()).isEqualTo(WebhookSender.Next.RETRY);
        assertThat(first.retryAfterMillis()).isEqualTo(30_000);
        assertThat(shaper.record("r1").delivery()).isEqualTo(new DeliveryState(1, 0,
                "webhook attempt failed: table unreachable", T0, T0 + 30_000, false, false));

        WebhookSender.Attempt last = sender.failedOutright("r1", 3, "x".repeat(5000), T0 + 90_000);

        assertThat(last.next()).isEqualTo(WebhookSender.Next.DEAD_LETTER);
        DeliveryState state = shaper.record("r1").delivery();
        assertThat(state.deadLettered()).isTrue();
        assertThat(state.lastError()).hasSize(1024);
        assertThat(state.nextAttemptAtMillis()).isZero();
        assertThat(transport.posts).isEmpty();
    }

    @Test
    void anOutrightFailureLeavesADeliveredWebhookAndAnUnknownRequestAlone() {
        succeeded("r1", LOCAL_HOOK);
        transport.answer(204);
        WebhookSender sender = sender(CallbackUrlPolicy.local());
        DeliveryState delivered = sender.attempt("r1", 1, T0).state();

        assertThat(sender.failedOutright("r1", 2, "late failure", T0 + 1).next()).isEqualTo(WebhookSender.Next.DONE);
        assertThat(shaper.record("r1").delivery()).isEqualTo(delivered);
        WebhookSender.Attempt unknown = sender.failedOutright("nobody", 1, "lost", T0);
        assertThat(unknown.next()).isEqualTo(WebhookSender.Next.DONE);
        assertThat(unknown.state()).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 404, 408, 410, 429, 500})
    void anyAnswerOutside2xxIsTriedAgainSinceReceiversRecover(int code) {
        succeeded("r1", LOCAL_HOOK);
        transport.answer(code);

        assertThat(sender(CallbackUrlPolicy.local()).attempt("r1", 1, T0).next()).isEqualTo(WebhookSender.Next.RETRY);
    }

    @Test
    void aDeliveredWebhookIsNotSentAgainByADuplicateEntry() {
        succeeded("r1", LOCAL_HOOK);
        WebhookSender sender = sender(CallbackUrlPolicy.local());
        sender.attempt("r1", 1, T0);

        WebhookSender.Attempt duplicate = sender.attempt("r1", 1, T0 + 1);

        assertThat(duplicate.next()).isEqualTo(WebhookSender.Next.DONE);
        assertThat(transport.posts).hasSize(1);
    }

    @Test
    void strictModeRefusesALoopbackCallbackWithoutCallingItAndSaysSoOnTheRequest() {
        succeeded("r1", "https://127.0.0.1/hook");

        WebhookSender.Attempt attempt = sender(CallbackUrlPolicy.strict()).attempt("r1", 1, T0);

        assertThat(attempt.next()).isEqualTo(WebhookSender.Next.DONE);
        assertThat(transport.posts).isEmpty();
        DeliveryState state = shaper.record("r1").delivery();
        assertThat(state.delivered()).isFalse();
        assertThat(state.attempts()).isZero();
        assertThat(state.lastError()).contains("loopback");
        assertThat(state.isSettled()).isTrue();
    }

    @Test
    void strictModeRefusesANameThatResolvesToLoopbackWithoutCallingIt() throws Exception {
        // Needs a host name other than "localhost" that resolves to loopback without DNS, as a
        // machine's own name usually does through its hosts file.
        String host = InetAddress.getLocalHost().getHostName();
        assumeThat(host).isNotEqualToIgnoringCase("localhost");
        assumeThat(Arrays.stream(InetAddress.getAllByName(host)).anyMatch(InetAddress::isLoopbackAddress)).isTrue();
        succeeded("r1", "https://" + host + "/hook");

        WebhookSender.Attempt attempt = sender(CallbackUrlPolicy.strict()).attempt("r1", 1, T0);

        assertThat(attempt.state().lastError()).isEqualTo("callbackUrl resolves to a loopback address");
        assertThat(transport.posts).isEmpty();
    }

    @Test
    void anUnknownRequestOrOneWithoutACallbackSendsNothing() {
        succeeded("r2", null);
        WebhookSender sender = sender(CallbackUrlPolicy.local());

        assertThat(sender.attempt("nobody", 1, T0).next()).isEqualTo(WebhookSender.Next.DONE);
        assertThat(sender.attempt("r2", 1, T0).state()).isNull();
        assertThat(transport.posts).isEmpty();
    }

    private WebhookSender sender(CallbackUrlPolicy policy) {
        return WebhookSender.builder().requests(shaper.requests).status(status).transport(transport)
                .callbacks(policy).secret(SECRET).schedule(THREE).build();
    }

    private RequestRecord succeeded(String requestId, String callbackUrl) {
        shaper.enqueue(shaper.newRequest(requestId, MODEL, T0 + 60_000).callbackUrl(callbackUrl).build());
        shaper.admit(requestId);
        shaper.invocations(new FakeModelInvoker()).process(requestId);
        return shaper.record(requestId);
    }
}
