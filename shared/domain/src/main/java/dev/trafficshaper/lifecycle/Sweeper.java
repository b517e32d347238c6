package dev.trafficshaper.lifecycle;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Brings requests that were admitted and then lost track of to an end: the drainer runs it every
 * {@link #PERIOD} and as it starts, the one-minute safety net runs it for every model.
 *
 * <p>Why: between the admission and the terminal write a request passes through processes that
 * can stop at any moment — a drainer that wrote a batch ADMITTED ahead of its slots and crashed
 * before dispatching it, a dispatch that was dropped, a Bedrock Processor that stopped mid-call or
 * after the answer was stored. Nobody else would look at such a request again before its
 * workflow's timeout. The sweeper reads the model's unsettled requests
 * ({@link RequestQueue#unsettled}: ADMITTED or INVOKING) admitted more than {@link #GRACE} ago
 * and, by what the record says:
 * <ul>
 *   <li><b>ADMITTED, deadline open</b>: dispatched again. The processor's ADMITTED → INVOKING
 *       claim still allows one call; an admission this old is sent back to the queue as stale
 *       without calling Bedrock, and the drainer admits it again at a fresh slot.
 *   <li><b>ADMITTED, deadline passed</b>: expired (504), the workflow resumed.
 *   <li><b>INVOKING with its answer recorded</b>: finished from that answer (usage settled,
 *       SUCCEEDED, resumed), as the processor would have.
 *   <li><b>INVOKING without an answer, past its call's end</b>: the processor stopped during the
 *       call, which may have run: failed as {@link FailureReason#MODEL_TIMEOUT}, never sent again.
 *       A call ends by {@code max(deadline, start + 1 s)} (its timeout is bounded by the deadline),
 *       so after that plus {@link #GRACE} nobody will write its outcome.
 * </ul>
 *
 * <p>Bound: an orphan is acted on at most {@code GRACE + PERIOD} after its admission (or its
 * call's end) while a drainer runs, and {@code GRACE + 60 s} otherwise: 90 s. Every action is a
 * conditional transition, so a sweep that races the processor or another sweep changes nothing
 * the winner wrote.
 */
public final class Sweeper {

    /** How old an unsettled admission (or a call past its end) must be before the sweeper acts on it. */
    public static final Duration GRACE = Duration.ofSeconds(30);

    /** How often a running drainer sweeps its model. */
    public static final Duration PERIOD = Duration.ofSeconds(30);

    /** Requests looked at per model and sweep; the rest wait for the next sweep. */
    public static final int LIMIT = 500;

    private final RequestQueue queue;
    private final RequestStore requests;
    private final InvocationService invocations;
    private final InvocationDispatch dispatch;
    private final WorkflowCallback callback;
    private final ShaperMetrics metrics;

    private Sweeper(RequestQueue queue, RequestStore requests, InvocationService invocations,
                    InvocationDispatch dispatch, WorkflowCallback callback, ShaperMetrics metrics) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.requests = Objects.requireNonNull(requests, "requests");
        this.invocations = Objects.requireNonNull(invocations, "invocations");
        this.dispatch = Objects.requireNonNull(dispatch, "dispatch");
        this.callback = Objects.requireNonNull(callback, "callback");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * @param invocations the Bedrock Processor's service, which finishes an answered request
     * @param dispatch    where an ADMITTED request is sent again
     */
    public static Sweeper create(RequestQueue queue, RequestStore requests, InvocationService invocations,
                                 InvocationDispatch dispatch, WorkflowCallback callback, ShaperMetrics metrics) {
        return new Sweeper(queue, requests, invocations, dispatch, callback, metrics);
    }

    /** What one sweep of one model did. */
    public record Report(int redispatched, int expired, int finished, int timedOut) {
        public static final Report NONE = new Report(0, 0, 0, 0);

        public int total() {
            return redispatched + expired + finished + timedOut;
        }
    }

    public Report sweep(ModelConfig model, long nowMillis) {
        long grace = GRACE.toMillis();
        List<RequestRecord> stale = queue.unsettled(model.key(), nowMillis - grace, LIMIT, nowMillis);
        int redispatched = 0;
        int expired = 0;
        int finished = 0;
        int timedOut = 0;
        for (RequestRecord record : stale) {
            if (record.state() == RequestState.ADMITTED) {
                if (record.deadlineMillis() <= nowMillis) {
                    TransitionResult result = queue.expire(QueueItem.of(record), nowMillis);
                    if (result.applied()) {
                        ended(result.record());
                        expired++;
                    }
                } else {
                    try {
                        dispatch.dispatch(model.key(), record.requestId());
                        redispatched++;
                    } catch (RuntimeException e) {
                        // the next sweep tries again
                    }
                }
            } else if (record.isAnswered()) {
                if (invocations.finishAnswered(model, record, nowMillis) == InvocationService.Result.SUCCEEDED) {
                    finished++;
                }
            } else if (record.state() == RequestState.INVOKING
                    && Math.max(record.deadlineMillis(), record.startedAtMillis() + 1_000) + grace <= nowMillis) {
                TransitionResult result = requests.transition(record.requestId(), new RequestEvent.Fail(
                        FailureReason.MODEL_TIMEOUT, "the Bedrock Processor stopped during the call, which may"
                        + " have run; not sent again", null), nowMillis);
                if (result.applied()) {
                    ended(result.record());
                    timedOut++;
                }
            }
        }
        if (redispatched > 0) {
            try {
                dispatch.flush(); // a Lambda function sends nothing once it returns
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return new Report(redispatched, expired, finished, timedOut);
    }

    private void ended(RequestRecord terminal) {
        metrics.outcome(terminal);
        callback.resume(terminal);
    }
}
