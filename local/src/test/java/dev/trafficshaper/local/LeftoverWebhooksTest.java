package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.DelegatingRequestStore;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A runtime started on a store that outlived the last process queues the webhooks that process
 * left waiting in memory (a {@code kill -9} between the terminal write and the attempt), and only
 * those: not one delivered, dead-lettered or still pending a terminal state.
 */
class LeftoverWebhooksTest {

    private static final long T0 = System.currentTimeMillis() / 1000 * 1000;

    @Test
    void aStartQueuesAgainOnlyTheWebhooksOfEndedRequestsThatWereNeitherDeliveredNorDeadLettered() {
        Map<String, RequestRecord> stored = Map.of(
                "queued-at-the-kill", record("queued-at-the-kill", RequestState.SUCCEEDED, DeliveryState.queued(T0)),
                "delivered", record("delivered", RequestState.SUCCEEDED, DeliveryState.queued(T0).succeeded(204, T0)),
                "dead-lettered", record("dead-lettered", RequestState.FAILED,
                        DeliveryState.queued(T0).deadLettered(500, "HTTP 500", T0)),
                "still-running", record("still-running", RequestState.INVOKING, null));
        LocalRuntime runtime = LocalRuntime.builder().catalog(ModelCatalog.defaults()).invoker((model, body, timeout) -> {
            throw new AssertionError("no call expected");
        }).stores(catalog -> {
            LocalStores memory = LocalStores.inMemory().apply(catalog);
            return new LocalStores(DelegatingRequestStore.readOnly(stored), memory.queue(), memory.leases(),
                    memory.payloads(), memory.usage(), memory.board(), () -> List.copyOf(stored.keySet()));
        }).build();
        try {
            assertThat(runtime.webhooks().pending()).isEqualTo(1);
        } finally {
            runtime.close();
        }
    }

    private static RequestRecord record(String id, RequestState state, DeliveryState delivery) {
        return RequestRecord.builder().requestId(id).tenant("t").modelKey("nova-lite").state(state)
                .enqueuedAtMillis(T0).updatedAtMillis(T0).deadlineMillis(T0 + 60_000).finishedAtMillis(T0)
                .estimate(TokenUsage.of(10, 10))
                .payloadRef(new PayloadRef(PayloadRef.Location.INLINE, id, PayloadKind.REQUEST, "0".repeat(64), 2,
                        T0 + 10_000_000))
                .callbackUrl("http://127.0.0.1:9/hook").delivery(delivery).expiresAtMillis(T0 + 10_000_000).build();
    }
}
