package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import org.junit.jupiter.api.Test;

class AdmissionServiceTest {

    private final ShaperFixture shaper = new ShaperFixture();
    private final AdmissionService admission = AdmissionService.create(shaper.queue, shaper.requests, shaper.leases, shaper.wake,
            shaper.callback);

    @Test
    void enqueuesTheTicketWithItsTaskTokenAndWakesADrainerWhenNoneHoldsTheLease() {
        Ticket ticket = shaper.ticket("r1", "acme", MODEL, T0 + 60_000);

        RequestRecord record = admission.admit(ticket, "task-token-1", T0);

        assertThat(record.state()).isEqualTo(RequestState.QUEUED);
        assertThat(shaper.requests.taskToken("r1", T0)).contains("task-token-1");
        assertThat(record.estimate()).isEqualTo(ticket.estimate());
        assertThat(record.payloadRef()).isEqualTo(ticket.payloadRef());
        assertThat(record.deadlineMillis()).isEqualTo(T0 + 60_000);
        assertThat(shaper.queue.depth(MODEL, T0)).isEqualTo(1);
        assertThat(shaper.wakes).containsExactly(MODEL);
        assertThat(shaper.resumed).isEmpty();
    }

    @Test
    void doesNotWakeADrainerWhileOneHoldsTheLease() {
        shaper.leases.acquire(MODEL, "drainer", 30_000, T0);

        admission.admit(shaper.ticket("r1", "acme", MODEL, T0 + 60_000), "t", T0);

        assertThat(shaper.wakes).isEmpty();
        assertThat(shaper.queue.depth(MODEL, T0)).isEqualTo(1);
    }

    @Test
    void wakesAgainOnceTheLeaseHasExpired() {
        shaper.leases.acquire(MODEL, "drainer", 30_000, T0);

        admission.admit(shaper.ticket("r1", "acme", MODEL, T0 + 600_000), "t", T0 + 30_000);

        assertThat(shaper.wakes).containsExactly(MODEL);
    }

    @Test
    void aRetriedAdmitOfAPendingRequestMakesItsNewTokenTheOneThatResumesTheWorkflow() {
        Ticket ticket = shaper.ticket("r1", "acme", MODEL, T0 + 60_000);
        admission.admit(ticket, "first-attempt", T0);

        RequestRecord again = admission.admit(ticket, "second-attempt", T0 + 1_000);

        assertThat(again.state()).isEqualTo(RequestState.QUEUED);
        assertThat(shaper.requests.taskToken("r1", T0 + 1_000)).contains("second-attempt");
        assertThat(shaper.queue.depth(MODEL, T0 + 1_000)).isEqualTo(1);
        assertThat(shaper.resumed).isEmpty();
    }

    @Test
    void aRetriedAdmitOfAPendingRequestStoredWithoutATokenStoresItsToken() {
        Ticket ticket = shaper.ticket("r1", "acme", MODEL, T0 + 60_000);
        admission.admit(ticket, null, T0);

        admission.admit(ticket, "redriven", T0 + 1_000);

        assertThat(shaper.requests.taskToken("r1", T0 + 1_000)).contains("redriven");
        assertThat(shaper.queue.depth(MODEL, T0 + 1_000)).isEqualTo(1);
        assertThat(shaper.resumed).isEmpty();
    }

    @Test
    void aRepeatOfAPendingRequestEnqueuesNothingMore() {
        Ticket ticket = shaper.ticket("r1", "acme", MODEL, T0 + 60_000);
        admission.admit(ticket, "task-token-1", T0);

        RequestRecord again = admission.admit(ticket, "task-token-1", T0 + 1_000);

        assertThat(again.enqueuedAtMillis()).isEqualTo(T0);
        assertThat(shaper.queue.depth(MODEL, T0 + 1_000)).isEqualTo(1);
        assertThat(shaper.resumed).isEmpty();
    }

    @Test
    void aRepeatForARequestThatHasEndedResumesItsWorkflowAgain() {
        Ticket ticket = shaper.ticket("r1", "acme", MODEL, T0 + 60_000);
        RequestRecord queued = admission.admit(ticket, "task-token-1", T0);
        shaper.queue.expire(QueueItem.of(queued), T0 + 60_000);
        shaper.wakes.clear();

        RequestRecord again = admission.admit(ticket, "task-token-1", T0 + 61_000);

        assertThat(again.state()).isEqualTo(RequestState.EXPIRED);
        assertThat(shaper.resumed).extracting(RequestRecord::requestId, RequestRecord::state)
                .containsExactly(tuple("r1", RequestState.EXPIRED));
        assertThat(shaper.resumedTokens).containsExactly("task-token-1");
        assertThat(shaper.wakes).isEmpty();
        assertThat(shaper.queue.depth(MODEL, T0 + 61_000)).isZero();
    }

    @Test
    void aRetriedTaskForARequestThatHasEndedIsResumedThroughItsOwnNewToken() {
        Ticket ticket = shaper.ticket("r1", "acme", MODEL, T0 + 60_000);
        RequestRecord queued = admission.admit(ticket, "task-token-1", T0);
        shaper.queue.expire(QueueItem.of(queued), T0 + 60_000);

        admission.admit(ticket, "task-token-2", T0 + 61_000);

        assertThat(shaper.resumedTokens).containsExactly("task-token-2");
        assertThat(shaper.requests.taskToken("r1", T0 + 61_000)).contains("task-token-1");
    }

    @Test
    void anotherTenantsRequestIdIsAConflictAndChangesNothing() {
        admission.admit(shaper.ticket("r1", "acme", MODEL, T0 + 60_000), "task-token-1", T0);
        shaper.wakes.clear();

        assertThatThrownBy(() -> admission.admit(shaper.ticket("r1", "globex", MODEL, T0 + 90_000), "other", T0))
                .isInstanceOf(RequestIdConflictException.class);
        RequestRecord stored = shaper.record("r1");
        assertThat(stored.tenant()).isEqualTo("acme");
        assertThat(shaper.requests.taskToken("r1", T0)).contains("task-token-1");
        assertThat(shaper.wakes).isEmpty();
        assertThat(shaper.resumed).isEmpty();
    }
}
