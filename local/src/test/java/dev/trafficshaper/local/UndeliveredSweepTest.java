package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.DelegatingRequestStore;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The running runtime's pass over ended requests never handed off, on fake time (each sweep is
 * given its {@code now}): it hands off each one once its grace has passed, leaves alone every
 * request whose delivery was handed off or has begun, and reads the store at most once a period.
 */
class UndeliveredSweepTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final long PERIOD = 30_000;
    private static final long GRACE = 30_000;

    private final Map<String, RequestRecord> stored = new ConcurrentHashMap<>();
    private final List<String> handedOff = new ArrayList<>();
    private final AtomicInteger listings = new AtomicInteger();
    private final UndeliveredSweep sweep = new UndeliveredSweep(() -> {
        listings.incrementAndGet();
        return List.copyOf(stored.keySet());
    }, DelegatingRequestStore.readOnly(stored), record -> {
        handedOff.add(record.requestId());
        // What Notifier.deliver writes: the webhook queued, the hand-off marked.
        stored.put(record.requestId(), record.toBuilder().delivery(DeliveryState.queued(T0))
                .handedOffAtMillis(T0 + GRACE).build());
    }, PERIOD, GRACE);

    @Test
    void anEndedRequestNeverHandedOffIsHandedOffOnceItsGraceHasPassed() {
        stored.put("ended", record("ended", RequestState.SUCCEEDED, null, 0));

        assertThat(sweep.sweep(T0 + GRACE - 1)).as("its writer may still be handing it off").isZero();
        assertThat(sweep.sweep(T0 + GRACE - 1 + PERIOD)).isEqualTo(1);
        assertThat(sweep.sweep(T0 + GRACE - 1 + 2 * PERIOD)).as("handed off: not again").isZero();

        assertThat(handedOff).containsExactly("ended");
    }

    @Test
    void aHandOffThatFailedIsTriedAgain() {
        stored.put("failed-hand-off", record("failed-hand-off", RequestState.FAILED,
                DeliveryState.notHandedOff("delivery not handed off: queue unreachable"), 0));

        assertThat(sweep.sweep(T0 + GRACE)).isEqualTo(1);

        assertThat(handedOff).containsExactly("failed-hand-off");
    }

    @Test
    void requestsHandedOffBegunOrStillRunningAreLeftAlone() {
        stored.put("marked", record("marked", RequestState.SUCCEEDED, DeliveryState.queued(T0), T0));
        stored.put("delivered", record("delivered", RequestState.SUCCEEDED,
                DeliveryState.queued(T0).succeeded(204, T0), 0));
        stored.put("retrying", record("retrying", RequestState.EXPIRED,
                DeliveryState.queued(T0).failed(500, "HTTP 500", T0, T0 + 10_000), 0));
        stored.put("dead-lettered", record("dead-lettered", RequestState.FAILED,
                DeliveryState.queued(T0).deadLettered(500, "HTTP 500", T0), 0));
        stored.put("still-running", record("still-running", RequestState.INVOKING, null, 0));

        assertThat(sweep.sweep(T0 + 10 * GRACE)).isZero();

        assertThat(handedOff).isEmpty();
    }

    @Test
    void theStoreIsReadAtMostOncePerPeriod() {
        sweep.sweep(T0);
        sweep.sweep(T0 + 1_000);
        sweep.sweep(T0 + PERIOD - 1);
        assertThat(listings).hasValue(1);

        sweep.sweep(T0 + PERIOD);
        assertThat(listings).hasValue(2);
    }

    private static RequestRecord record(String id, RequestState state, DeliveryState delivery, long handedOffAt) {
        return RequestRecord.builder().requestId(id).tenant("t").modelKey("nova-lite").state(state)
                .enqueuedAtMillis(T0 - 60_000).updatedAtMillis(T0).deadlineMillis(T0 + 60_000)
                .finishedAtMillis(state.isTerminal() ? T0 : 0).estimate(TokenUsage.of(10, 10))
                .payloadRef(new PayloadRef(PayloadRef.Location.INLINE, id, PayloadKind.REQUEST, "0".repeat(64), 2,
                        T0 + 10_000_000))
                .callbackUrl("http://127.0.0.1:9/hook").delivery(delivery).handedOffAtMillis(handedOffAt)
                .expiresAtMillis(T0 + 10_000_000).build();
    }
}
