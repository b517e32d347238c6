package dev.trafficshaper.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The shared test fake: what a subclass overrides reaches both reads; a read-only store refuses writes. */
class DelegatingRequestStoreTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final RequestRecord ENDED = RequestRecord.builder().requestId("r1").tenant("t")
            .modelKey("nova-lite").state(RequestState.SUCCEEDED).enqueuedAtMillis(T0).updatedAtMillis(T0)
            .deadlineMillis(T0 + 60_000).finishedAtMillis(T0).estimate(TokenUsage.of(10, 10))
            .payloadRef(new PayloadRef(PayloadRef.Location.INLINE, "r1", PayloadKind.REQUEST, "0".repeat(64), 2,
                    T0 + 10_000_000))
            .expiresAtMillis(T0 + 10_000_000).build();

    @Test
    void aReadOnlyStoreServesItsRecordsAndRefusesEveryOtherCall() {
        RequestStore store = DelegatingRequestStore.readOnly(Map.of("r1", ENDED));

        assertThat(store.find("r1", T0)).contains(ENDED);
        assertThat(store.find("unknown", T0)).isEmpty();
        assertThat(store.findAll(List.of("r1", "unknown"), T0)).containsOnlyKeys("r1");
        assertThatThrownBy(() -> store.recordHandoff("r1", true, T0))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("recordHandoff");
        assertThatThrownBy(() -> store.taskToken("r1", T0)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aChangedFindIsWhatTheBatchedReadSeesAndEveryOtherCallIsPassedOn() {
        RequestStore hidden = new DelegatingRequestStore(DelegatingRequestStore.readOnly(Map.of("r1", ENDED))) {
            @Override
            public Optional<RequestRecord> find(String requestId, long nowMillis) {
                return Optional.empty();
            }
        };

        assertThat(hidden.findAll(List.of("r1"), T0)).isEmpty();
        assertThatThrownBy(() -> hidden.recordDelivery("r1", DeliveryState.queued(T0), T0))
                .as("passed on to the read-only store, which refuses it")
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("recordDelivery");
    }
}
