package dev.trafficshaper.composition;

import static dev.trafficshaper.lifecycle.ShaperFixture.PACED;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static dev.trafficshaper.lifecycle.ShaperFixture.TENANT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.delivery.StatusService;
import dev.trafficshaper.delivery.WebhookSignature;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.lifecycle.SubmissionService;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one composition root: every service from one {@link ShaperPorts} value over the in-memory
 * adapters, on a fake clock, with each port's factory counted.
 */
@Timeout(10)
class ShaperServicesTest {

    private static final byte[] SECRET = "test-secret".getBytes(StandardCharsets.UTF_8);
    private static final String HOOK = "http://127.0.0.1:9/hook";

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final Map<String, AtomicInteger> made = Collections.synchronizedMap(new TreeMap<>());
    private final List<String> dispatched = Collections.synchronizedList(new ArrayList<>());
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final List<Map<String, String>> webhooks = Collections.synchronizedList(new ArrayList<>());
    private final List<String> queued = Collections.synchronizedList(new ArrayList<>());
    private ShaperServices services;

    {
        services = ShaperServices.create(ports().build());
    }

    /** The fixture's stores as ports; dispatch runs the Bedrock Processor inline, as a test double of the async invoke. */
    private ShaperPorts.Builder ports() {
        return ShaperPorts.builder()
                .catalog(counted("catalog", () -> shaper.catalog))
                .queue(counted("queue", () -> shaper.queue))
                .requests(counted("requests", () -> shaper.requests))
                .leases(counted("leases", () -> shaper.leases))
                .board(counted("board", () -> shaper.board))
                .usage(counted("usage", () -> shaper.usage))
                .payloads(counted("payloads", () -> shaper.payloads))
                .invoker(counted("invoker", () -> bedrock))
                .dispatch(counted("dispatch", () -> (model, requestId) -> {
                    dispatched.add(requestId);
                    services.invocations().process(requestId);
                }))
                .wake(counted("wake", () -> shaper.wake))
                .callback(counted("callback", () -> shaper.callback))
                .events(counted("events", () -> (type, detail) -> events.add(type)))
                .webhooks(counted("webhooks", () -> (URI target, Map<String, String> headers, String body) -> {
                    webhooks.add(headers);
                    return 204;
                }))
                .webhookSecret(counted("webhookSecret", () -> SECRET))
                .metrics(counted("metrics", () -> shaper.metrics))
                .clock(shaper.clock)
                .webhookQueue(counted("webhookQueue", () -> queued::add))
                .ids(() -> "generated")
                .settings(ShaperSettings.builder().callbacks(CallbackUrlPolicy.local()).build());
    }

    private <T> Supplier<T> counted(String port, Supplier<T> factory) {
        return () -> {
            made.computeIfAbsent(port, key -> new AtomicInteger()).incrementAndGet();
            return factory.get();
        };
    }

    @Test
    void aRequestGoesFromSubmissionToItsWebhookThroughTheServicesOfOnePortsValue() throws Exception {
        SubmissionService.Accepted accepted = services.submissions().submit(TENANT, body("r1"), shaper.now());
        services.admissions().admit(accepted.ticket(), "token-r1", shaper.now());
        assertThat(shaper.wakes).as("the admission woke a drainer").containsExactly(PACED);

        DrainService.Report report = services.drains().drain(PACED, "drainer", Long.MAX_VALUE);

        assertThat(report.admitted()).isEqualTo(1);
        assertThat(dispatched).containsExactly("r1");
        assertThat(bedrock.callsFor("r1")).isEqualTo(1);
        RequestRecord done = shaper.record("r1");
        assertThat(done.state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactly("r1");
        assertThat(done.isHandedOff()).as("handed off by the processor before it resumed the workflow").isTrue();
        assertThat(queued).containsExactly("r1");
        assertThat(services.notifier().deliver(done).webhookQueued()).as("a repeat does nothing").isFalse();
        services.webhookSender().attempt("r1", 1, shaper.now());

        assertThat(events).containsExactly(Notifier.EVENT_DETAIL_TYPE);
        String body = services.status().view(done.toBuilder().delivery(null).build(), shaper.now()).json();
        String timestamp = webhooks.get(0).get("X-Shaper-Timestamp");
        assertThat(webhooks.get(0)).containsEntry(WebhookSignature.SIGNATURE_HEADER,
                WebhookSignature.sign(SECRET, Long.parseLong(timestamp), body));
        StatusService.StatusView view = services.status().status("r1", TENANT, shaper.now()).orElseThrow();
        assertThat(view.httpStatus()).isEqualTo(200);
    }

    @Test
    void eachServiceIsBuiltOnceFromOnlyThePortsItNeeds() {
        StatusService status = services.status();

        assertThat(services.status()).isSameAs(status);
        assertThat(made.keySet()).containsExactly("board", "catalog", "payloads", "requests");

        InvocationService invocations = services.invocations();

        assertThat(services.invocations()).isSameAs(invocations);
        assertThat(made.keySet()).containsExactly("board", "callback", "catalog", "invoker", "metrics", "payloads",
                "queue", "requests", "usage", "wake");
        assertThat(made.values()).allSatisfy(count -> assertThat(count).as("each port made once").hasValue(1));
    }

    @Test
    void theWebhookSecretIsReadOnlyByTheWebhookSender() {
        services.submissions();
        services.admissions();
        services.drains();
        services.safetyNet();
        services.invocations();
        services.finalizer();
        assertThat(made).doesNotContainKeys("webhookSecret", "webhooks", "events", "webhookQueue");

        services.notifier();
        assertThat(made).as("the Deliver step queues, it does not sign").doesNotContainKeys("webhookSecret", "webhooks");
        assertThat(made.get("webhookQueue")).hasValue(1);
        services.webhookSender();
        services.webhookSender();

        assertThat(made.get("webhookSecret")).hasValue(1);
        assertThat(made.get("webhooks")).hasValue(1);
    }

    @Test
    void theSafetyNetWakesADrainerThroughTheSameWakePortAsAdmission() {
        shaper.enqueue("r1", PACED, T0 + 600_000);

        assertThat(services.safetyNet().sweep(shaper.now()).woken()).containsExactly(PACED);

        assertThat(shaper.wakes).containsExactly(PACED);
    }

    @Test
    void aPortThatFailsToBeMadeFailsTheServiceThatNeedsItAndIsTriedAgainNextTime() {
        AtomicInteger attempts = new AtomicInteger();
        ShaperServices flaky = ShaperServices.create(ports().invoker(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("environment variable BEDROCK_ENDPOINT is required");
            }
            return bedrock;
        }).build());

        assertThatThrownBy(flaky::invocations).hasMessageContaining("BEDROCK_ENDPOINT");
        assertThat(flaky.status()).as("services without that port are unaffected").isNotNull();
        assertThat(flaky.invocations()).isNotNull();
        assertThat(attempts).hasValue(2);
    }

    @Test
    void portsWithoutADefaultMustBeGiven() {
        assertThatThrownBy(() -> ShaperPorts.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ports missing: catalog, queue, requests, leases, board, usage, payloads, invoker, dispatch,"
                        + " wake, callback, webhookQueue, webhookSecret");
    }

    @Test
    void theSecretHandedOutIsACopy() {
        ShaperPorts ports = ports().build();

        ports.webhookSecret()[0] = 'X';

        assertThat(ports.webhookSecret()).isEqualTo(SECRET);
    }

    private static byte[] body(String requestId) {
        return ("{\"requestId\": \"" + requestId + "\", \"model\": \"" + PACED + "\", \"callbackUrl\": \"" + HOOK
                + "\", \"converse\": {\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"" + requestId
                + "\"}]}], \"inferenceConfig\": {\"maxTokens\": 100}}}").getBytes(StandardCharsets.UTF_8);
    }
}
