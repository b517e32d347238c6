package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static dev.trafficshaper.lifecycle.ShaperFixture.TENANT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FinalizerTest {

    private static final long DEADLINE = T0 + 60_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final Finalizer finalizer = shaper.finalizer();

    @ParameterizedTest
    @ValueSource(strings = {"States.Timeout", "States.HeartbeatTimeout"})
    void aTimeoutWhileQueuedExpiresTheRequestAndTakesItOffTheQueue(String error) {
        shaper.enqueue("r1", MODEL, DEADLINE);

        Optional<RequestRecord> result = finalizer.finalizeRequest("r1", TENANT, error, null, DEADLINE);

        assertThat(result).get().extracting(RequestRecord::state).isEqualTo(RequestState.EXPIRED);
        assertThat(shaper.record("r1").httpStatus()).isEqualTo(504);
        assertThat(shaper.queue.depth(MODEL, T0)).isZero();
        assertThat(shaper.queue.heads(MODEL, 10, T0).work()).isEmpty();
        assertThat(shaper.metrics.events).containsExactly("outcome r1 EXPIRED");
    }

    @Test
    void aTimeoutWhileAdmittedExpiresTheRequest() {
        shaper.enqueue("r1", MODEL, DEADLINE);
        shaper.admit("r1");

        assertThat(finalizer.finalizeRequest("r1", TENANT, "States.Timeout", null, DEADLINE))
                .get().extracting(RequestRecord::state).isEqualTo(RequestState.EXPIRED);
    }

    @Test
    void aTimeoutWhileInvokingFailsTheRequestAsAnExpiredDeadline() {
        invoking("r1");

        RequestRecord result = finalizer.finalizeRequest("r1", TENANT, "States.Timeout", "task timed out", DEADLINE)
                .orElseThrow();

        assertThat(result.state()).isEqualTo(RequestState.FAILED);
        assertThat(result.failureReason()).isEqualTo(FailureReason.DEADLINE_EXPIRED);
        assertThat(result.httpStatus()).isEqualTo(504);
        assertThat(result.detail()).isEqualTo("workflow ended: States.Timeout (task timed out)");
        assertThat(shaper.record("r1")).isEqualTo(result);
    }

    @Test
    void anAbortFailsTheRequestAsAborted() {
        invoking("r1");

        RequestRecord result = finalizer.finalizeRequest("r1", TENANT, "States.Aborted", "", T0 + 1_000)
                .orElseThrow();

        assertThat(result.state()).isEqualTo(RequestState.FAILED);
        assertThat(result.failureReason()).isEqualTo(FailureReason.ABORTED);
        assertThat(result.httpStatus()).isEqualTo(503);
        assertThat(result.detail()).isEqualTo("workflow ended: States.Aborted");
    }

    @Test
    void anAbortWhileQueuedFailsTheRequestAsAborted() {
        shaper.enqueue("r1", MODEL, DEADLINE);

        RequestRecord result = finalizer.finalizeRequest("r1", TENANT, "States.TaskFailed", "lambda crashed",
                T0 + 1_000).orElseThrow();

        assertThat(result.state()).isEqualTo(RequestState.FAILED);
        assertThat(result.failureReason()).isEqualTo(FailureReason.ABORTED);
    }

    @Test
    void aTerminalStatusIsKept() {
        invoking("r1");
        RequestRecord failed = shaper.requests.transition("r1",
                RequestEvent.Fail.of(FailureReason.INVALID_REQUEST, "bad"), T0 + 500).record();
        shaper.metrics.events.clear();

        Optional<RequestRecord> result = finalizer.finalizeRequest("r1", TENANT, "States.Timeout", null, DEADLINE);

        assertThat(result).contains(failed);
        assertThat(shaper.record("r1")).isEqualTo(failed);
        assertThat(shaper.metrics.events).isEmpty();
    }

    @Test
    void anotherTenantsRequestIsLeftAlone() {
        RequestRecord queued = shaper.enqueue("r1", MODEL, DEADLINE);

        assertThat(finalizer.finalizeRequest("r1", "globex", "States.Timeout", null, DEADLINE)).isEmpty();

        assertThat(shaper.requests.find("r1", DEADLINE)).contains(queued);
        assertThat(shaper.queue.depth(MODEL, T0)).isEqualTo(1);
    }

    @Test
    void aRequestNeverStoredHasNothingToFinalize() {
        assertThat(finalizer.finalizeRequest("never", TENANT, "States.Timeout", null, T0)).isEmpty();
    }

    @Test
    void recognisesTheTimeoutErrors() {
        assertThat(Finalizer.isTimeout("States.Timeout")).isTrue();
        assertThat(Finalizer.isTimeout("States.HeartbeatTimeout")).isTrue();
        assertThat(Finalizer.isTimeout("States.TaskFailed")).isFalse();
        assertThat(Finalizer.isTimeout(null)).isFalse();
    }

    private void invoking(String requestId) {
        shaper.enqueue(requestId, MODEL, DEADLINE);
        shaper.admit(requestId);
        assertThat(shaper.requests.transition(requestId, new RequestEvent.StartInvoking(), T0).applied()).isTrue();
    }

    @Test
    void aWorkflowWhoseEnqueueNeverHappenedLeavesAFailedRequestNotAnUnknownOne() {
        Ticket ticket = shaper.ticket("never-queued", TENANT, MODEL, DEADLINE);

        RequestRecord ended = finalizer.finalizeTicket(ticket, "Lambda.TooManyRequestsException",
                "Rate Exceeded.", shaper.now()).orElseThrow();

        assertThat(ended.state()).isEqualTo(RequestState.FAILED);
        assertThat(ended.failureReason()).isEqualTo(FailureReason.ABORTED);
        assertThat(ended.httpStatus()).isEqualTo(503);
        assertThat(ended.detail()).contains("Lambda.TooManyRequestsException");
        assertThat(shaper.record("never-queued")).isEqualTo(ended);
        assertThat(shaper.queue.heads(MODEL, 10, shaper.now()).work()).as("no queue item left behind").isEmpty();
    }

    @Test
    void aTicketWhoseRequestIsQueuedIsFinalizedAsTheRequest() {
        Ticket ticket = shaper.ticket("queued", TENANT, MODEL, DEADLINE);
        shaper.enqueue("queued", MODEL, DEADLINE);
        shaper.clock.set(DEADLINE + 1);

        RequestRecord ended = finalizer.finalizeTicket(ticket, "States.Timeout", "", shaper.now()).orElseThrow();

        assertThat(ended.state()).isEqualTo(RequestState.EXPIRED);
    }

    @Test
    void theDeliveryIsHandedOffOnceTheOutcomeIsRecordedAndAFailedHandOffIsThrownForTheWorkflowToRetry() {
        java.util.List<String> handedOff = new java.util.ArrayList<>();
        shaper.enqueue("r1", MODEL, DEADLINE);
        Finalizer delivering = Finalizer.create(shaper.requests, shaper.queue, shaper.metrics,
                terminal -> handedOff.add(terminal.requestId() + " " + terminal.state()));

        delivering.finalizeRequest("r1", TENANT, "States.Timeout", null, DEADLINE);

        assertThat(handedOff).containsExactly("r1 EXPIRED");

        shaper.enqueue("r2", MODEL, DEADLINE);
        Finalizer failing = Finalizer.create(shaper.requests, shaper.queue, shaper.metrics, terminal -> {
            throw new IllegalStateException("queue unreachable");
        });
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> failing.finalizeRequest("r2", TENANT,
                "States.Timeout", null, DEADLINE)).hasMessage("queue unreachable");
        assertThat(shaper.record("r2").state()).as("the outcome stays recorded").isEqualTo(RequestState.EXPIRED);
    }
}
