package dev.trafficshaper.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class LifecycleTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final PayloadRef REF = new PayloadRef(PayloadRef.Location.INLINE, "r", PayloadKind.REQUEST,
            "0".repeat(64), 2, T0 + 10_000_000);
    private static final List<RequestEvent> EVENTS = List.of(new RequestEvent.Admit(1),
            new RequestEvent.StartInvoking(), new RequestEvent.Succeed(TokenUsage.of(1, 1), REF),
            RequestEvent.Fail.of(FailureReason.THROTTLED, "429"), new RequestEvent.Expire(),
            new RequestEvent.Reject(FailureReason.THROTTLED, "eta"));

    @Test
    void onlyTheDocumentedTransitionsExist() {
        Set<String> allowed = new TreeSet<>();
        for (RequestState state : RequestState.values()) {
            for (RequestEvent event : EVENTS) {
                if (Lifecycle.next(record(state), event, T0).applied()) {
                    allowed.add(state + "->" + event.to());
                }
            }
        }

        assertThat(allowed).containsExactlyInAnyOrder(
                "QUEUED->ADMITTED", "QUEUED->FAILED", "QUEUED->EXPIRED", "QUEUED->REJECTED",
                "ADMITTED->INVOKING", "ADMITTED->FAILED", "ADMITTED->EXPIRED",
                "INVOKING->SUCCEEDED", "INVOKING->FAILED");
    }

    @Test
    void terminalStatesRefuseEveryEventAndStayAsTheyAre() {
        for (RequestState state : EnumSet.of(RequestState.SUCCEEDED, RequestState.FAILED, RequestState.EXPIRED,
                RequestState.REJECTED)) {
            assertThat(state.isTerminal()).isTrue();
            for (RequestEvent event : EVENTS) {
                TransitionResult result = Lifecycle.next(record(state), event, T0);
                assertThat(result.applied()).isFalse();
                assertThat(result.record()).isEqualTo(record(state));
            }
        }
    }

    @Test
    void admissionIsRefusedOnceTheDeadlineHasPassed() {
        RequestRecord queued = record(RequestState.QUEUED);

        assertThat(Lifecycle.next(queued, new RequestEvent.Admit(3), queued.deadlineMillis() - 1).applied()).isTrue();
        assertThat(Lifecycle.next(queued, new RequestEvent.Admit(3), queued.deadlineMillis()).applied()).isFalse();
    }

    @Test
    void aChangeWritesOnlyTheFieldsOfItsEvent() {
        RequestRecord admitted = Lifecycle.next(record(RequestState.QUEUED), new RequestEvent.Admit(7), T0 + 5)
                .record();

        assertThat(admitted).isEqualTo(record(RequestState.QUEUED).toBuilder().state(RequestState.ADMITTED)
                .updatedAtMillis(T0 + 5).admittedAtMillis(T0 + 5).fencingToken(7).build());
    }

    private static RequestRecord record(RequestState state) {
        return RequestRecord.builder().requestId("r").tenant("t").modelKey("m").state(state)
                .enqueuedAtMillis(T0).updatedAtMillis(T0).deadlineMillis(T0 + 60_000)
                .estimate(TokenUsage.of(10, 10)).payloadRef(REF).expiresAtMillis(T0 + 10_000_000).build();
    }
}
