package dev.trafficshaper.lifecycle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.lease.InMemoryDrainerLeases;
import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.InMemoryPayloadStore;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.InMemoryRequestQueue;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.InMemoryRequestStore;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.usage.InMemoryUsageLedger;
import dev.trafficshaper.usage.UsageSharding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The services' ports over the in-memory adapters, on a {@link FakeClock}, with the outbound calls
 * (drainer wake-ups, workflow resumes, metrics) recorded for assertions.
 */
public final class ShaperFixture {

    public static final long T0 = 1_700_000_000_000L;
    /** A model with a fallback. */
    public static final String MODEL = "nova-lite";
    public static final String FALLBACK = "nova-micro";
    /** A model paced on requests alone: 60 per minute at a target of 100% is one admission a second. */
    public static final String PACED = "paced";
    public static final String TENANT = "acme";
    public static final long DEFAULT_MAX_TOKENS = 100;

    private static final ObjectMapper JSON = new ObjectMapper();

    public final FakeClock clock = new FakeClock(T0);
    public final ModelCatalog catalog;
    public final InMemoryRequestStore requests = new InMemoryRequestStore();
    public final InMemoryDrainerLeases leases = new InMemoryDrainerLeases();
    public final InMemoryRequestQueue queue;
    public final InMemoryPayloadStore payloads = InMemoryPayloadStore.create();
    public final InMemoryUsageLedger usage = InMemoryUsageLedger.create(UsageSharding.defaults());
    public final InMemoryModelStatusBoard board = new InMemoryModelStatusBoard();
    public final List<String> wakes = Collections.synchronizedList(new ArrayList<>());
    public final List<RequestRecord> resumed = Collections.synchronizedList(new ArrayList<>());
    public final RecordingMetrics metrics = new RecordingMetrics();
    public final DrainerWake wake = wakes::add;
    /**
     * The task token each resume signalled, as the Step Functions callback picks it: the one given,
     * else the one stored (read at the terminal write's time), {@code null} when none is.
     */
    public final List<String> resumedTokens = Collections.synchronizedList(new ArrayList<>());
    public final WorkflowCallback callback = new WorkflowCallback() {
        @Override
        public void resume(RequestRecord terminal) {
            resumed(terminal, requests.taskToken(terminal.requestId(), terminal.updatedAtMillis()).orElse(null));
        }

        @Override
        public void resume(RequestRecord terminal, String taskToken) {
            resumed(terminal, taskToken);
        }

        private void resumed(RequestRecord terminal, String taskToken) {
            resumed.add(terminal);
            resumedTokens.add(taskToken);
        }
    };

    public ShaperFixture() {
        this(ModelCatalog.of(List.of(
                new ModelConfig(MODEL, "amazon.nova-lite-v1:0", Backend.CONVERSE, Quota.tokensPerMinute(1_000_000),
                        10_000, 300_000, PacerSettings.defaults(), 4, 900, 3_600, FALLBACK),
                new ModelConfig(FALLBACK, "amazon.nova-micro-v1:0", Backend.CONVERSE,
                        Quota.tokensPerMinute(1_000_000), 5_000, 100_000, PacerSettings.defaults(), 2, 900, 3_600,
                        null),
                new ModelConfig(PACED, "vendor.paced-v1", Backend.CONVERSE, new Quota(0, 60, 0, 0, 1), 1_000,
                        100_000, PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).headroom(false).build(), 2, 900,
                        3_600, null))));
    }

    public ShaperFixture(ModelCatalog catalog) {
        this.catalog = catalog;
        this.queue = InMemoryRequestQueue.create(requests, leases, catalog, ShardPicker.startingAt(0));
    }

    public long now() {
        return clock.nowMillis();
    }

    /** A Converse body whose prompt is the request id, which is how {@link FakeModelInvoker} knows it. */
    public static Payload converse(String requestId) {
        ObjectNode body = JSON.createObjectNode();
        body.putArray("messages").addObject().put("role", "user").putArray("content").addObject()
                .put("text", requestId);
        body.putObject("inferenceConfig").put("maxTokens", DEFAULT_MAX_TOKENS);
        return Payload.json(body.toString());
    }

    static String requestIdOf(String converseJson) {
        try {
            JsonNode body = JSON.readTree(converseJson);
            return body.path("messages").path(0).path("content").path(0).path("text").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public PayloadRef storeBody(String requestId, long deadlineMillis) {
        return payloads.put(requestId, PayloadKind.REQUEST, converse(requestId),
                deadlineMillis + NewRequest.DEFAULT_RETENTION_MILLIS);
    }

    public Ticket ticket(String requestId, String tenant, String modelKey, long deadlineMillis) {
        return new Ticket(requestId, tenant, modelKey, Lane.INTERACTIVE, now(), deadlineMillis,
                TokenUsage.of(10, DEFAULT_MAX_TOKENS), storeBody(requestId, deadlineMillis), null);
    }

    public NewRequest.Builder newRequest(String requestId, String modelKey, long deadlineMillis) {
        return NewRequest.builder().requestId(requestId).tenant(TENANT).modelKey(modelKey).lane(Lane.INTERACTIVE)
                .deadlineMillis(deadlineMillis).estimate(TokenUsage.of(10, DEFAULT_MAX_TOKENS))
                .payloadRef(storeBody(requestId, deadlineMillis)).taskToken("token-" + requestId);
    }

    /** Enqueues a request of {@link #TENANT} with its body stored, as the Budget Manager would. */
    public RequestRecord enqueue(String requestId, String modelKey, long deadlineMillis) {
        return enqueue(newRequest(requestId, modelKey, deadlineMillis).build());
    }

    public RequestRecord enqueue(NewRequest request) {
        return queue.enqueue(request, now()).record();
    }

    /** Admits a queued request as a drainer would, under the model's current lease or a new one. */
    public RequestRecord admit(String requestId) {
        RequestRecord queued = record(requestId);
        Lease lease = leases.current(queued.modelKey(), now())
                .orElseGet(() -> leases.acquire(queued.modelKey(), "test-drainer", 30_000, now()).lease());
        AdmitResult result = queue.admit(lease, List.of(QueueItem.of(queued)), now());
        if (result.admitted().size() != 1) {
            throw new AssertionError("could not admit " + requestId + ": " + result.refused());
        }
        return record(requestId);
    }

    public RequestRecord record(String requestId) {
        return requests.find(requestId, now()).orElseThrow(() -> new AssertionError("no record " + requestId));
    }

    public InvocationService invocations(FakeModelInvoker invoker) {
        return InvocationService.create(catalog, requests, queue, payloads, usage, invoker, callback, wake, metrics,
                clock);
    }

    public Finalizer finalizer() {
        return Finalizer.create(requests, queue, metrics);
    }

    /** Metrics as a list of lines, e.g. {@code "throttled paced"}. */
    public static final class RecordingMetrics implements ShaperMetrics {
        public final List<String> events = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void throttled(String modelKey) {
            events.add("throttled " + modelKey);
        }

        @Override
        public void requeued(String modelKey) {
            events.add("requeued " + modelKey);
        }

        @Override
        public void staleAdmission(String modelKey) {
            events.add("stale " + modelKey);
        }

        @Override
        public void settled(String modelKey, TokenUsage actual) {
            events.add("settled " + modelKey);
        }

        @Override
        public void outcome(RequestRecord terminal) {
            events.add("outcome " + terminal.requestId() + " " + terminal.state());
        }
    }
}
