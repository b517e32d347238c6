package dev.trafficshaper.delivery;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.RejectionKind;
import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NotifierTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LOCAL_HOOK = "http://127.0.0.1:9/hook";
    /** EventBridge's limit for one entry. */
    private static final int EVENT_LIMIT_BYTES = 256 * 1024;

    private final ShaperFixture shaper = new ShaperFixture();
    private final List<String> events = new ArrayList<>();
    private final List<String> queued = new ArrayList<>();
    private final Notifier notifier = Notifier.create(shaper.requests, queued::add,
            (type, detail) -> events.add(detail), shaper.clock);

    @Test
    void withoutACallbackPublishesOneEventAndQueuesNoWebhook() throws Exception {
        RequestRecord done = succeeded("r1", null, FakeModelInvoker.success("hello"));

        Notifier.Delivery delivery = notifier.deliver(done);

        assertThat(delivery).isEqualTo(new Notifier.Delivery("r1", false));
        assertThat(queued).isEmpty();
        assertThat(events).hasSize(1);
        assertThat(shaper.record("r1").delivery()).isNull();
    }

    @Test
    void theEventCarriesAReferenceAndASummaryNeverTheResponse() throws Exception {
        RequestRecord done = succeeded("r1", null, FakeModelInvoker.success("hello"));

        notifier.deliver(done);

        JsonNode event = JSON.readTree(events.get(0));
        assertThat(event.path("requestId").asText()).isEqualTo("r1");
        assertThat(event.path("statusUrl").asText()).isEqualTo("/v1/requests/r1");
        assertThat(event.path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(event.path("httpStatus").asInt()).isEqualTo(200);
        assertThat(event.path("model").asText()).isEqualTo(MODEL);
        assertThat(event.path("usage").path("outputTokens").asLong()).isEqualTo(FakeModelInvoker.USAGE.outputTokens());
        assertThat(event.has("finishedAt")).isTrue();
        assertThat(event.path("resultSizeBytes").asLong()).isEqualTo(done.resultRef().sizeBytes());
        assertThat(event.has("response")).isFalse();
        assertThat(event.has("delivery")).isFalse();
    }

    @Test
    void aResponseOverTheEventLimitStillMakesASmallEventThatNamesTheStoredResult() throws Exception {
        RequestRecord done = succeeded("big", null, FakeModelInvoker.success("x".repeat(300 * 1024)));
        assertThat(done.resultRef().sizeBytes()).isGreaterThan(EVENT_LIMIT_BYTES);

        notifier.deliver(done);

        byte[] detail = events.get(0).getBytes(StandardCharsets.UTF_8);
        assertThat(detail.length).isLessThan(2048);
        JsonNode event = JSON.readTree(detail);
        assertThat(event.path("resultSizeBytes").asLong()).isEqualTo(done.resultRef().sizeBytes());
        if (done.resultRef().location() == PayloadRef.Location.OBJECT) {
            assertThat(event.path("resultKey").asText()).isEqualTo(done.resultRef().key());
        } else {
            assertThat(event.has("resultKey")).as("stored inline, no object to name").isFalse();
        }
    }

    @Test
    void aLongFailureDetailIsCutInTheEvent() throws Exception {
        RequestRecord done = succeeded("r1", null, new BedrockOutcome.Rejected(
                RejectionKind.VALIDATION, 400, "y".repeat(10_000)));

        notifier.deliver(done);

        assertThat(JSON.readTree(events.get(0)).path("detail").asText()).hasSize(OutcomeEvent.MAX_DETAIL_CHARS);
    }

    @Test
    void withACallbackQueuesTheWebhookAndMarksItQueuedOnTheRequest() throws Exception {
        RequestRecord done = succeeded("r1", LOCAL_HOOK, FakeModelInvoker.success("hello"));

        Notifier.Delivery delivery = notifier.deliver(done);

        assertThat(delivery).isEqualTo(new Notifier.Delivery("r1", true));
        assertThat(queued).containsExactly("r1");
        assertThat(shaper.record("r1").delivery()).isEqualTo(DeliveryState.queued(shaper.now()));
        assertThat(events).hasSize(1);
    }

    @Test
    void theHandOffIsMarkedOnTheRequestAndARepeatDoesNothing() {
        RequestRecord done = succeeded("r1", LOCAL_HOOK, FakeModelInvoker.success("hello"));
        notifier.deliver(done);

        RequestRecord marked = shaper.record("r1");
        Notifier.Delivery again = notifier.deliver(marked);

        assertThat(marked.isHandedOff()).isTrue();
        assertThat(marked.handedOffAtMillis()).isEqualTo(shaper.now());
        assertThat(again).isEqualTo(new Notifier.Delivery("r1", false));
        assertThat(queued).containsExactly("r1");
        assertThat(events).hasSize(1);
    }

    @Test
    void aHandOffRepeatedBeforeItsMarkQueuesAgainAndKeepsTheAttemptAlreadyRecorded() {
        RequestRecord done = succeeded("r1", LOCAL_HOOK, FakeModelInvoker.success("hello"));
        // a first hand-off queued the webhook and stopped before its mark; the attempt ran already
        queued.add("r1");
        shaper.requests.recordDelivery("r1", DeliveryState.queued(T0).failed(503, "HTTP 503", T0, T0 + 30_000), T0);

        Notifier.Delivery repeated = notifier.deliver(done);

        assertThat(queued).as("a second entry, answered by the first one's outcome").containsExactly("r1", "r1");
        assertThat(repeated.webhookQueued()).isTrue();
        assertThat(shaper.record("r1").isHandedOff()).isTrue();
        assertThat(shaper.record("r1").delivery().attempts()).as("not taken back to queued").isEqualTo(1);
    }

    @Test
    void aHandOffThatFailsIsVisibleOnTheRequestAndThrownAndARetryClearsIt() {
        RequestRecord done = succeeded("r1", LOCAL_HOOK, FakeModelInvoker.success("hello"));
        Notifier failing = Notifier.create(shaper.requests, queued::add, (type, detail) -> {
            throw new IllegalStateException("event bus unreachable");
        }, shaper.clock);

        assertThatThrownBy(() -> failing.deliver(done)).hasMessageContaining("event bus unreachable");

        RequestRecord owed = shaper.record("r1");
        assertThat(owed.isHandedOff()).isFalse();
        assertThat(owed.delivery().lastError()).contains("not handed off").contains("event bus unreachable");
        assertThat(owed.delivery().attempts()).isZero();

        notifier.deliver(owed);

        assertThat(shaper.record("r1").isHandedOff()).isTrue();
        assertThat(shaper.record("r1").delivery()).isEqualTo(DeliveryState.queued(shaper.now()));
        assertThat(events).hasSize(1);
    }

    @Test
    void aRequestNotYetTerminalIsNotHandedOff() {
        shaper.enqueue(shaper.newRequest("r1", MODEL, T0 + 60_000).build());

        assertThat(notifier.deliver("r1")).contains(new Notifier.Delivery("r1", false));
        assertThat(events).isEmpty();
        assertThat(shaper.record("r1").isHandedOff()).isFalse();
    }

    @Test
    void anUnknownRequestDeliversNothing() {
        assertThat(notifier.deliver("nobody")).isEmpty();
        assertThat(events).isEmpty();
        assertThat(queued).isEmpty();
    }

    @Test
    void theQueuedWebhookNamesItsReceiverSoRoutingNeedsNoRead() throws Exception {
        List<String> receivers = new ArrayList<>();
        Notifier routing = Notifier.create(shaper.requests, new WebhookQueue() {
            @Override
            public void enqueue(String requestId) {
                throw new AssertionError("the Notifier names the receiver");
            }

            @Override
            public void enqueue(String requestId, String callbackUrl) {
                receivers.add(requestId + " " + callbackUrl);
            }
        }, OutcomeEvents.NONE, shaper.clock);

        routing.deliver(succeeded("r1", LOCAL_HOOK, FakeModelInvoker.success("hello")));

        assertThat(receivers).containsExactly("r1 " + LOCAL_HOOK);
    }

    @Test
    void theQueuedWebhookCarriesItsTenantForAQueueThatKeysByTenant() {
        List<String> tenants = new ArrayList<>();
        Notifier keyed = Notifier.create(shaper.requests, new WebhookQueue() {
            @Override
            public void enqueue(String requestId) {
                throw new AssertionError("the Notifier hands over the whole record");
            }

            @Override
            public void enqueue(RequestRecord finished) {
                tenants.add(finished.requestId() + " " + finished.tenant());
            }
        }, OutcomeEvents.NONE, shaper.clock);
        RequestRecord done = succeeded("r1", LOCAL_HOOK, FakeModelInvoker.success("hello"));

        keyed.deliver(done);

        assertThat(tenants).containsExactly("r1 " + done.tenant());
    }

    @Test
    void needsEveryPort() {
        assertThatThrownBy(() -> Notifier.create(shaper.requests, null, OutcomeEvents.NONE, shaper.clock))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private RequestRecord succeeded(String requestId, String callbackUrl, BedrockOutcome outcome) {
        shaper.enqueue(shaper.newRequest(requestId, MODEL, T0 + 60_000).callbackUrl(callbackUrl).build());
        shaper.admit(requestId);
        shaper.invocations(new FakeModelInvoker().answer(requestId, outcome)).process(requestId);
        return shaper.record(requestId);
    }
}
