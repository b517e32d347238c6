package dev.trafficshaper.lifecycle;

import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.Optional;

/**
 * Records one honest terminal outcome for a workflow that ended without one: its waiting task
 * timed out, the execution was stopped, or a step failed. A terminal status already written (the
 * usual case: the Bedrock Processor failed the task after writing it) is kept, never replaced.
 *
 * <p>A request still queued or admitted when its time ran out expired; one that was already
 * being sent to Bedrock was aborted (its result, if Bedrock still answers, is discarded by the
 * terminal-state condition).
 *
 * <p>A workflow whose enqueue never happened (the Budget Manager was throttled past the Admit
 * task's retries) has no status item, and its caller, who holds a {@code 202}, would get
 * {@code 404} forever. Given the workflow's ticket ({@link #finalizeTicket}), the finalizer stores
 * the request first and then ends it like any other, so {@code GET} reports why it ended.
 *
 * <p>Whatever ended the request, the finalizer then hands its delivery off unless that is done
 * ({@link DeliveryHandoff}): the writer of a terminal state hands off before it resumes the
 * workflow, so a workflow that reaches the finalizer without it (the writer stopped in between,
 * or its hand-off failed) gets its delivery here, once.
 */
public final class Finalizer {

    /** The Step Functions error names that mean "ran out of time". */
    public static boolean isTimeout(String error) {
        return "States.Timeout".equals(error) || "States.HeartbeatTimeout".equals(error);
    }

    private final RequestStore requests;
    private final RequestQueue queue;
    private final ShaperMetrics metrics;
    private final DeliveryHandoff handoff;

    private Finalizer(RequestStore requests, RequestQueue queue, ShaperMetrics metrics, DeliveryHandoff handoff) {
        this.requests = requests;
        this.queue = queue;
        this.metrics = metrics;
        this.handoff = handoff;
    }

    /** A finalizer that hands off no delivery. */
    public static Finalizer create(RequestStore requests, RequestQueue queue, ShaperMetrics metrics) {
        return create(requests, queue, metrics, DeliveryHandoff.NONE);
    }

    public static Finalizer create(RequestStore requests, RequestQueue queue, ShaperMetrics metrics,
                                   DeliveryHandoff handoff) {
        if (handoff == null) {
            throw new IllegalArgumentException("handoff is required");
        }
        return new Finalizer(requests, queue, metrics, handoff);
    }

    /**
     * @param tenant the tenant the workflow was started for; another tenant's record is left alone
     * @param error  the workflow's error name, e.g. {@code States.Timeout}
     * @return the terminal record, empty when the request was never stored (refused before enqueue)
     * @throws RuntimeException when the delivery cannot be handed off (recorded on the request; the
     *                          workflow's retry of this step tries again)
     */
    public Optional<RequestRecord> finalizeRequest(String requestId, String tenant, String error, String cause,
                                                   long nowMillis) {
        Optional<RequestRecord> found = requests.find(requestId, nowMillis);
        if (found.isEmpty() || !found.get().tenant().equals(tenant)) {
            return Optional.empty();
        }
        RequestRecord current = found.get();
        for (int attempt = 0; attempt < 3 && !current.isTerminal(); attempt++) {
            TransitionResult result = step(current, error, cause, nowMillis);
            if (result.record() == null) {
                return Optional.empty();
            }
            current = result.record();
            if (result.applied()) {
                metrics.outcome(current);
            }
        }
        if (current.isTerminal()) {
            handoff.handOff(current);
        }
        return Optional.of(current);
    }

    /**
     * As {@link #finalizeRequest}, but a request that was never stored is stored from its ticket
     * first (its enqueue did not happen) and then ended, so it is never unknown to its caller.
     */
    public Optional<RequestRecord> finalizeTicket(Ticket ticket, String error, String cause, long nowMillis) {
        if (requests.find(ticket.requestId(), nowMillis).isEmpty()) {
            queue.enqueue(ticket.toNewRequest(null), nowMillis);
        }
        return finalizeRequest(ticket.requestId(), ticket.tenant(), error, cause, nowMillis);
    }

    private TransitionResult step(RequestRecord current, String error, String cause, long nowMillis) {
        boolean timeout = isTimeout(error);
        if (timeout && (current.state() == RequestState.QUEUED || current.state() == RequestState.ADMITTED)) {
            return queue.expire(QueueItem.of(current), nowMillis);
        }
        FailureReason reason = timeout ? FailureReason.DEADLINE_EXPIRED : FailureReason.ABORTED;
        String detail = "workflow ended: " + error + (cause == null || cause.isBlank() ? "" : " (" + cause + ")");
        TransitionResult failed = requests.transition(current.requestId(), RequestEvent.Fail.of(reason, detail),
                nowMillis);
        if (failed.applied() && current.state() == RequestState.QUEUED) {
            queue.expire(QueueItem.of(current), nowMillis); // refused (it has ended); removes the queue item
        }
        return failed;
    }
}
