package dev.trafficshaper.lifecycle;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.InvalidPayloadException;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import dev.trafficshaper.usage.Settlement;
import dev.trafficshaper.usage.UsageLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The Bedrock Processor: sends one admitted request to Bedrock, once.
 *
 * <p>The order is the point. Claim ADMITTED → INVOKING first, so a repeated delivery of the same
 * admission finds the claim taken and does nothing. Then call Bedrock with retries off and a
 * timeout inside the deadline. Then store the result, settle the usage and write the terminal
 * status, and only then resume the workflow ("write, then signal"): whoever is told the request
 * ended can always read how it ended.
 *
 * <p>A throttle means the pacer misjudged the quota, not that the request is bad: it goes back to
 * the queue, keeping its place, for the pacer to send again (at most {@code maxRequeues} times and
 * only before its deadline). The drainer sees it come back and lowers its target. A transient
 * failure (5xx, model or client timeout) goes back the same way, sharing that budget of requeues,
 * but leaves the target alone; a rejection is final at once.
 */
public final class InvocationService {

    /**
     * How a requeue's detail starts: the drainer lowers its target only for a throttle, since a
     * transient failure (5xx, timeout) says nothing about the quota.
     */
    public static final String THROTTLED = "throttled by Bedrock: ";
    public static final String TRANSIENT = "transient Bedrock failure: ";

    /** The longest a single Bedrock call may take, whatever the deadline. */
    public static final Duration MAX_CALL = Duration.ofMinutes(10);

    private final ModelCatalog catalog;
    private final RequestStore requests;
    private final RequestQueue queue;
    private final PayloadStore payloads;
    private final UsageLedger usage;
    private final ModelInvoker invoker;
    private final WorkflowCallback callback;
    private final DrainerWake wake;
    private final ShaperMetrics metrics;
    private final LongSupplier clock;
    private final int maxRequeues;

    private InvocationService(ModelCatalog catalog, RequestStore requests, RequestQueue queue, PayloadStore payloads,
                              UsageLedger usage, ModelInvoker invoker, WorkflowCallback callback, DrainerWake wake,
                              ShaperMetrics metrics, LongSupplier clock, int maxRequeues) {
        this.catalog = catalog;
        this.requests = requests;
        this.queue = queue;
        this.payloads = payloads;
        this.usage = usage;
        this.invoker = invoker;
        this.callback = callback;
        this.wake = wake;
        this.metrics = metrics;
        this.clock = clock;
        this.maxRequeues = maxRequeues;
    }

    public static InvocationService create(ModelCatalog catalog, RequestStore requests, RequestQueue queue,
                                           PayloadStore payloads, UsageLedger usage, ModelInvoker invoker,
                                           WorkflowCallback callback, DrainerWake wake, ShaperMetrics metrics,
                                           LongSupplier clock, int maxRequeues) {
        return new InvocationService(catalog, requests, queue, payloads, usage, invoker, callback, wake, metrics,
                clock, maxRequeues);
    }

    /** The same parts as {@link #create}, named; the composition root uses this. */
    public static Builder builder() {
        return new Builder();
    }

    /** What one delivery did. */
    public enum Result { SUCCEEDED, FAILED, REQUEUED, EXPIRED, DUPLICATE, UNKNOWN }

    public Result process(String requestId) {
        long now = clock.getAsLong();
        Optional<RequestRecord> found = requests.find(requestId, now);
        if (found.isEmpty()) {
            return Result.UNKNOWN;
        }
        RequestRecord admitted = found.get();
        if (admitted.state() == RequestState.ADMITTED && admitted.deadlineMillis() <= now) {
            TransitionResult expired = queue.expire(QueueItem.of(admitted), now);
            return expired.applied() ? finish(expired.record(), Result.EXPIRED) : Result.DUPLICATE;
        }
        TransitionResult claim = requests.transition(requestId, new RequestEvent.StartInvoking(), now);
        if (!claim.applied()) {
            return Result.DUPLICATE;
        }
        RequestRecord invoking = claim.record();
        ModelConfig model = catalog.require(invoking.modelKey());
        Optional<Payload> body = payloads.get(invoking.payloadRef(), now);
        if (body.isEmpty()) {
            return fail(invoking, FailureReason.DEPENDENCY_ERROR, "the stored request body is missing", now);
        }
        Duration timeout = Duration.ofMillis(Math.max(1_000, Math.min(MAX_CALL.toMillis(),
                invoking.deadlineMillis() - now)));
        BedrockOutcome outcome = invoker.invoke(model, body.get().text(), timeout);
        long done = clock.getAsLong();
        if (outcome instanceof BedrockOutcome.Succeeded success) {
            return succeed(model, invoking, success, done);
        }
        BedrockOutcome.Failure failure = (BedrockOutcome.Failure) outcome;
        boolean throttled = failure instanceof BedrockOutcome.Throttled;
        if (throttled) {
            metrics.throttled(model.key());
        }
        if (failure.retryable() && invoking.requeues() < maxRequeues && invoking.deadlineMillis() > done) {
            String why = (throttled ? THROTTLED : TRANSIENT) + failure.message();
            TransitionResult back = queue.requeue(invoking,
                    new RequestEvent.Requeue(invoking.requeues() + 1, why), done);
            if (back.applied()) {
                metrics.requeued(model.key());
                wake.wake(model.key());
                return Result.REQUEUED;
            }
        }
        FailureReason reason = failure.failureReasonAt(Instant.ofEpochMilli(done),
                Instant.ofEpochMilli(invoking.deadlineMillis()));
        String detail = "Bedrock answered " + (failure.httpStatus() == 0 ? "nothing" : failure.httpStatus()) + ": "
                + failure.message();
        return fail(invoking, reason, detail, done);
    }

    private Result succeed(ModelConfig model, RequestRecord invoking, BedrockOutcome.Succeeded success, long now) {
        PayloadRef resultRef;
        try {
            resultRef = payloads.put(invoking.requestId(), PayloadKind.RESULT, Payload.json(success.responseJson()),
                    invoking.expiresAtMillis());
        } catch (InvalidPayloadException e) {
            return fail(invoking, FailureReason.DEPENDENCY_ERROR, "the model's response could not be stored: "
                    + e.getMessage(), now);
        }
        usage.record(new Settlement(model.key(), invoking.requestId(), invoking.tenant(), invoking.startedAtMillis(),
                success.usage(), Charge.settlement(model.quota(), success.usage())), now);
        metrics.settled(model.key(), success.usage());
        TransitionResult done = requests.transition(invoking.requestId(),
                new RequestEvent.Succeed(success.usage(), resultRef), now);
        return done.applied() ? finish(done.record(), Result.SUCCEEDED) : afterLostRace(done);
    }

    private Result fail(RequestRecord invoking, FailureReason reason, String detail, long now) {
        TransitionResult done = requests.transition(invoking.requestId(),
                new RequestEvent.Fail(reason, detail, null), now);
        return done.applied() ? finish(done.record(), Result.FAILED) : afterLostRace(done);
    }

    /** Someone else (the finalizer after a timeout) ended the request first: theirs stands. */
    private Result afterLostRace(TransitionResult refused) {
        if (refused.record() != null && refused.record().isTerminal()) {
            callback.resume(refused.record());
        }
        return Result.DUPLICATE;
    }

    private Result finish(RequestRecord terminal, Result result) {
        metrics.outcome(terminal);
        callback.resume(terminal);
        return result;
    }

    /** Requeues allowed per request by default: enough to ride out a misjudged minute. */
    public static final int DEFAULT_MAX_REQUEUES = 3;
    public static final class Builder {
        private ModelCatalog catalog;
        private RequestStore requests;
        private RequestQueue queue;
        private PayloadStore payloads;
        private UsageLedger usage;
        private ModelInvoker invoker;
        private WorkflowCallback callback;
        private DrainerWake wake;
        private ShaperMetrics metrics = ShaperMetrics.NONE;
        private LongSupplier clock = System::currentTimeMillis;
        private int maxRequeues = DEFAULT_MAX_REQUEUES;

        private Builder() {
        }

        public Builder catalog(ModelCatalog value) { this.catalog = value; return this; }
        public Builder requests(RequestStore value) { this.requests = value; return this; }
        public Builder queue(RequestQueue value) { this.queue = value; return this; }
        public Builder payloads(PayloadStore value) { this.payloads = value; return this; }
        public Builder usage(UsageLedger value) { this.usage = value; return this; }
        public Builder invoker(ModelInvoker value) { this.invoker = value; return this; }
        public Builder callback(WorkflowCallback value) { this.callback = value; return this; }
        public Builder wake(DrainerWake value) { this.wake = value; return this; }
        public Builder metrics(ShaperMetrics value) { this.metrics = value; return this; }
        public Builder clock(LongSupplier value) { this.clock = value; return this; }
        /** Default {@value #DEFAULT_MAX_REQUEUES}. */
        public Builder maxRequeues(int value) { this.maxRequeues = value; return this; }

        public InvocationService build() {
            if (catalog == null || requests == null || queue == null || payloads == null || usage == null
                    || invoker == null || callback == null || wake == null || metrics == null || clock == null) {
                throw new IllegalStateException("catalog, requests, queue, payloads, usage, invoker, callback, wake,"
                        + " metrics and clock are required");
            }
            if (maxRequeues < 0) {
                throw new IllegalArgumentException("maxRequeues must not be negative, was " + maxRequeues);
            }
            return create(catalog, requests, queue, payloads, usage, invoker, callback, wake, metrics, clock,
                    maxRequeues);
        }
    }
}
