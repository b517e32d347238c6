package dev.trafficshaper.lifecycle;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.InvalidPayloadException;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.RequeueReason;
import dev.trafficshaper.request.TransitionResult;
import dev.trafficshaper.usage.Settlement;
import dev.trafficshaper.usage.UsageLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
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
 * <p>The work is split at the call: {@link #begin} (expire or claim, read the body, bound the
 * timeout) and {@link #complete} (given Bedrock's outcome), so a caller that calls Bedrock its own
 * way — the simulator, in virtual time — runs the same steps as {@link #process}.
 *
 * <p><b>Charged when it really starts.</b> The pacer charges an admission at the moment it admits
 * it and keeps the charge in its 60 s ledger; Bedrock charges the call when it starts. A call that
 * starts {@code d} later than its admission stays in Bedrock's minute {@code d} longer than in the
 * pacer's, so a wave of late starts (a Lambda backlog, cold starts) can put up to {@code d / 60 s}
 * of a minute's admissions on top of what the pacer allowed. The target leaves
 * {@code 1 − target} of each minute as headroom, so a delay is absorbed while
 * {@code target × (60 s + d) ≤ 60 s}, i.e. {@code d ≤ 60 s × (1 − target) / target}: 3.2 s at the
 * production target of 0.95, 1.2 s at 0.98. An admission older than that when its processor picks
 * it up goes back to the queue ({@link RequeueReason#STALE_ADMISSION}) instead of to Bedrock; its
 * drainer releases the reservation and the pacer admits it again, charged when the call will
 * start. That return costs no requeue. The limit is at least {@link #MIN_ADMISSION_AGE}, so a
 * target near 1, which leaves no headroom, does not send every ordinary cold start back.
 *
 * <p>A throttle means the pacer misjudged the quota (or a headroom probe found its edge), not that
 * the request is bad: it goes back to the queue, keeping its place, for the pacer to send again
 * before its deadline, however often that happens; the request's {@code requeues} count shows how
 * often. The drainer sees it come back and lowers its target multiplicatively, so repeated throttles
 * slow the whole model rather than fail requests, and only the deadline bounds a request's stay. A
 * transient failure that proves Bedrock did nothing (a 5xx or not-ready answered at once, a
 * connection never made) goes back the same way, uncounted: the drainer holds it back with
 * exponential backoff and treats a run of them as an outage. A failure
 * that may have run (no answer in time, a connection broken mid-call, Bedrock's model timeout or
 * model error) ends the request as {@link FailureReason#MODEL_TIMEOUT}, never sent twice, and its
 * drainer keeps its reservation charged. A rejection is final at once.
 */
public final class InvocationService {

    /** The longest a single Bedrock call may take, whatever the deadline. */
    public static final Duration MAX_CALL = Duration.ofMinutes(10);

    /** The lowest default admission-age limit, whatever the target (see the class comment). */
    public static final Duration MIN_ADMISSION_AGE = Duration.ofSeconds(1);

    private static final long WINDOW_MILLIS = 60_000;

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
    private final Duration maxAdmissionAge;

    private InvocationService(Builder b) {
        this.catalog = b.catalog;
        this.requests = b.requests;
        this.queue = b.queue;
        this.payloads = b.payloads;
        this.usage = b.usage;
        this.invoker = b.invoker;
        this.callback = b.callback;
        this.wake = b.wake;
        this.metrics = b.metrics;
        this.clock = b.clock;
        this.maxAdmissionAge = b.maxAdmissionAge;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The positional form the composition roots use; every admission-age limit is the default. */
    public static InvocationService create(ModelCatalog catalog, RequestStore requests, RequestQueue queue,
                                           PayloadStore payloads, UsageLedger usage, ModelInvoker invoker,
                                           WorkflowCallback callback, DrainerWake wake, ShaperMetrics metrics,
                                           LongSupplier clock) {
        return builder().catalog(catalog).requests(requests).queue(queue).payloads(payloads).usage(usage)
                .invoker(invoker).callback(callback).wake(wake).metrics(metrics).clock(clock).build();
    }

    /**
     * The oldest an admission may be when its call starts, unless configured: what the model's
     * target leaves of the pacer's 60 s window, {@code 60 s × (1 − target) / target}, and at least
     * {@link #MIN_ADMISSION_AGE}.
     */
    public static Duration defaultMaxAdmissionAge(PacerSettings pacer) {
        double target = pacer.targetUtilization();
        long headroom = (long) Math.floor(WINDOW_MILLIS * (1 - target) / target + 1e-6);
        return Duration.ofMillis(Math.max(MIN_ADMISSION_AGE.toMillis(), headroom));
    }

    /** What one delivery did. */
    public enum Result {
        SUCCEEDED, FAILED, REQUEUED,
        /** The admission was too old to start: back in the queue, Bedrock not called. */
        STALE,
        EXPIRED, DUPLICATE, UNKNOWN
    }

    /** What {@link #begin} found: a call to make, or the delivery's result when there is none. */
    public sealed interface Start permits Call, NoCall {
    }

    /**
     * A claimed request, ready for Bedrock: the body, the model and the call's timeout, and the
     * INVOKING record that {@link #complete} continues from.
     */
    public record Call(RequestRecord invoking, ModelConfig model, String body, Duration timeout) implements Start {
        public Call {
            Objects.requireNonNull(invoking, "invoking");
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(timeout, "timeout");
        }
    }

    /**
     * Nothing to call: the delivery ended with {@code result}; {@code record} is the request as it
     * was left (null when unknown, or when another delivery holds it).
     */
    public record NoCall(Result result, RequestRecord record) implements Start {
        public NoCall {
            Objects.requireNonNull(result, "result");
        }

        public NoCall(Result result) {
            this(result, null);
        }
    }

    /**
     * What one delivery did and the request as this delivery left it: terminal, back in the queue,
     * or null when this delivery does not know (another one holds the claim, the id is unknown). A
     * drainer that runs the call itself books it from this, without reading the request again.
     * {@code reachedByMillis}: the latest the call can have reached Bedrock (its answer's arrival
     * less the time Bedrock says it worked on it), {@link #NOT_CALLED} when Bedrock was not called.
     */
    public record Ended(Result result, RequestRecord record, long reachedByMillis) {

        public static final long NOT_CALLED = 0;

        public Ended {
            Objects.requireNonNull(result, "result");
        }

        public Ended(Result result, RequestRecord record) {
            this(result, record, NOT_CALLED);
        }
    }

    /** Begins, calls Bedrock once, completes: the Bedrock Processor's whole job for one delivery. */
    public Result process(String requestId) {
        return processToEnd(requestId).result();
    }

    /** {@link #process}, with the request as the delivery left it. */
    public Ended processToEnd(String requestId) {
        Start start = begin(requestId);
        if (start instanceof NoCall none) {
            return new Ended(none.result(), none.record());
        }
        Call call = (Call) start;
        return completeToEnd(call, invoker.invoke(call.model(), call.body(), call.timeout()));
    }

    /**
     * The timeout of a call starting at {@code nowMillis}: what is left before the deadline, at
     * least 1 s and at most {@link #MAX_CALL}.
     */
    public static Duration callTimeout(long deadlineMillis, long nowMillis) {
        return Duration.ofMillis(Math.max(1_000, Math.min(MAX_CALL.toMillis(), deadlineMillis - nowMillis)));
    }

    /**
     * Everything before the call: expires an admission past its deadline, sends back one too old
     * to start, else claims ADMITTED → INVOKING and reads the body.
     */
    public Start begin(String requestId) {
        long now = clock.getAsLong();
        Optional<RequestRecord> found = requests.find(requestId, now);
        if (found.isEmpty()) {
            return new NoCall(Result.UNKNOWN);
        }
        RequestRecord admitted = found.get();
        if (admitted.state() == RequestState.ADMITTED && admitted.deadlineMillis() <= now) {
            TransitionResult expired = queue.expire(QueueItem.of(admitted), now);
            return expired.applied() ? noCall(finish(expired.record(), Result.EXPIRED)) : new NoCall(Result.DUPLICATE);
        }
        if (admitted.state() == RequestState.ADMITTED) {
            ModelConfig model = catalog.require(admitted.modelKey());
            long age = now - admitted.admittedAtMillis();
            long limit = maxAdmissionAge == null ? defaultMaxAdmissionAge(model.pacer()).toMillis()
                    : maxAdmissionAge.toMillis();
            if (age > limit) {
                return noCall(sendBackStale(model, admitted, age, limit, now));
            }
        }
        TransitionResult claim = requests.transition(requestId, new RequestEvent.StartInvoking(), now);
        if (!claim.applied()) {
            return new NoCall(Result.DUPLICATE);
        }
        RequestRecord invoking = claim.record();
        ModelConfig model = catalog.require(invoking.modelKey());
        Optional<Payload> body = payloads.get(invoking.payloadRef(), now);
        if (body.isEmpty()) {
            return noCall(fail(invoking, FailureReason.DEPENDENCY_ERROR, "the stored request body is missing",
                    now));
        }
        return new Call(invoking, model, body.get().text(), callTimeout(invoking.deadlineMillis(), now));
    }

    /**
     * Everything after the call: stores the result, settles the usage and writes the terminal
     * status, or puts the request back for the pacer; then signals.
     */
    public Result complete(Call call, BedrockOutcome outcome) {
        return completeToEnd(call, outcome).result();
    }

    /** {@link #complete}, with the request as it was left. */
    public Ended completeToEnd(Call call, BedrockOutcome outcome) {
        long done = clock.getAsLong();
        Ended ended = completeToEnd(call, outcome, done);
        long service = outcome instanceof BedrockOutcome.Succeeded success ? Math.max(0, success.serviceMillis()) : 0;
        // a latency longer than the call itself says nothing: by its answer, then
        long reachedBy = done - service >= call.invoking().startedAtMillis() ? done - service : done;
        return new Ended(ended.result(), ended.record(), reachedBy);
    }

    private Ended completeToEnd(Call call, BedrockOutcome outcome, long done) {
        ModelConfig model = call.model();
        RequestRecord invoking = call.invoking();
        if (outcome instanceof BedrockOutcome.Succeeded success) {
            return succeed(model, invoking, success, done);
        }
        BedrockOutcome.Failure failure = (BedrockOutcome.Failure) outcome;
        boolean throttled = failure instanceof BedrockOutcome.Throttled;
        if (throttled) {
            metrics.throttled(model.key());
        }
        String detail = "Bedrock answered " + (failure.httpStatus() == 0 ? "nothing" : failure.httpStatus()) + ": "
                + failure.message();
        if (failure instanceof BedrockOutcome.Transient t && !t.kind().provesNothingRan()) {
            // It may have run and been billed: never sent again, and its drainer keeps it charged.
            return fail(invoking, FailureReason.MODEL_TIMEOUT, "the call may have run (" + t.kind() + "); "
                    + detail, done);
        }
        if (failure.retryable() && invoking.deadlineMillis() > done) {
            RequeueReason reason = throttled ? RequeueReason.THROTTLED : RequeueReason.TRANSIENT;
            String why = (throttled ? "throttled by Bedrock: " : "Bedrock did nothing: ") + failure.message();
            int requeues = reason.isCounted() ? invoking.requeues() + 1 : invoking.requeues();
            TransitionResult back = queue.requeue(invoking, new RequestEvent.Requeue(requeues, reason, why), done);
            if (back.applied()) {
                metrics.requeued(model.key());
                wake.wake(model.key());
                return new Ended(Result.REQUEUED, back.record());
            }
        }
        FailureReason reason = failure.failureReasonAt(Instant.ofEpochMilli(done),
                Instant.ofEpochMilli(invoking.deadlineMillis()));
        return fail(invoking, reason, detail, done);
    }

    private static NoCall noCall(Ended ended) {
        return new NoCall(ended.result(), ended.record());
    }

    private Ended sendBackStale(ModelConfig model, RequestRecord admitted, long age, long limit, long now) {
        String why = "admission " + age + " ms old when its call would start (limit " + limit + " ms)";
        TransitionResult back = queue.requeue(admitted,
                new RequestEvent.Requeue(admitted.requeues(), RequeueReason.STALE_ADMISSION, why), now);
        if (!back.applied()) {
            return new Ended(Result.DUPLICATE, null);
        }
        metrics.staleAdmission(model.key());
        wake.wake(model.key());
        return new Ended(Result.STALE, back.record());
    }

    private Ended succeed(ModelConfig model, RequestRecord invoking, BedrockOutcome.Succeeded success, long now) {
        PayloadRef resultRef;
        try {
            resultRef = payloads.put(invoking.requestId(), PayloadKind.RESULT, Payload.json(success.responseJson()),
                    invoking.expiresAtMillis());
        } catch (InvalidPayloadException e) {
            return fail(invoking, FailureReason.DEPENDENCY_ERROR, "the model's response could not be stored: "
                    + e.getMessage(), now);
        }
        // The answer is on the status item before anything else: a stop after this is finished by the sweeper.
        TransitionResult answered = requests.transition(invoking.requestId(),
                new RequestEvent.RecordAnswer(success.usage(), resultRef), now);
        if (!answered.applied()) {
            // Ended meanwhile (the finalizer, after a timeout): Bedrock still charged the call.
            recordUsage(model, invoking, success.usage(), now);
            return afterLostRace(answered);
        }
        return finishAnsweredToEnd(model, answered.record(), now);
    }

    private void recordUsage(ModelConfig model, RequestRecord request, TokenUsage used, long now) {
        usage.record(new Settlement(model.key(), request.requestId(), request.tenant(), request.startedAtMillis(),
                used, Charge.settlement(model.quota(), used)), now);
        metrics.settled(model.key(), used);
    }

    /**
     * Settles and ends a request whose answer is already recorded ({@link RequestRecord#isAnswered()}):
     * books its usage (once), writes SUCCEEDED and resumes its workflow. The processor's last step,
     * and the sweeper's when a processor stopped before it.
     */
    public Result finishAnswered(ModelConfig model, RequestRecord answered, long now) {
        return finishAnsweredToEnd(model, answered, now).result();
    }

    private Ended finishAnsweredToEnd(ModelConfig model, RequestRecord answered, long now) {
        TokenUsage used = answered.actualUsage();
        recordUsage(model, answered, used, now);
        TransitionResult done = requests.transition(answered.requestId(),
                new RequestEvent.Succeed(used, answered.resultRef()), now);
        return done.applied() ? finish(done.record(), Result.SUCCEEDED) : afterLostRace(done);
    }

    private Ended fail(RequestRecord invoking, FailureReason reason, String detail, long now) {
        TransitionResult done = requests.transition(invoking.requestId(),
                new RequestEvent.Fail(reason, detail, null), now);
        return done.applied() ? finish(done.record(), Result.FAILED) : afterLostRace(done);
    }

    /** Someone else (the finalizer after a timeout) ended the request first: theirs stands. */
    private Ended afterLostRace(TransitionResult refused) {
        if (refused.record() != null && refused.record().isTerminal()) {
            callback.resume(refused.record());
            return new Ended(Result.DUPLICATE, refused.record());
        }
        return new Ended(Result.DUPLICATE, null);
    }

    private Ended finish(RequestRecord terminal, Result result) {
        metrics.outcome(terminal);
        callback.resume(terminal);
        return new Ended(result, terminal);
    }

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
        private Duration maxAdmissionAge;

        private Builder() {
        }

        public Builder catalog(ModelCatalog value) { this.catalog = value; return this; }
        public Builder requests(RequestStore value) { this.requests = value; return this; }
        public Builder queue(RequestQueue value) { this.queue = value; return this; }
        public Builder payloads(PayloadStore value) { this.payloads = value; return this; }
        public Builder usage(UsageLedger value) { this.usage = value; return this; }
        /** The Bedrock call {@link #process} makes; a caller that only uses begin and complete may omit it. */
        public Builder invoker(ModelInvoker value) { this.invoker = value; return this; }
        public Builder callback(WorkflowCallback value) { this.callback = value; return this; }
        public Builder wake(DrainerWake value) { this.wake = value; return this; }
        public Builder metrics(ShaperMetrics value) { this.metrics = value; return this; }
        public Builder clock(LongSupplier value) { this.clock = value; return this; }
        /** One limit for every model, instead of each model's {@link #defaultMaxAdmissionAge}. */
        public Builder maxAdmissionAge(Duration value) { this.maxAdmissionAge = value; return this; }

        public InvocationService build() {
            if (catalog == null || requests == null || queue == null || payloads == null || usage == null
                    || callback == null || wake == null || metrics == null || clock == null) {
                throw new IllegalStateException("catalog, requests, queue, payloads, usage, callback, wake, metrics"
                        + " and clock are required");
            }
            if (maxAdmissionAge != null && maxAdmissionAge.isNegative()) {
                throw new IllegalArgumentException("maxAdmissionAge must not be negative");
            }
            if (invoker == null) {
                invoker = (model, body, timeout) -> {
                    throw new IllegalStateException("no invoker: this service only begins and completes calls");
                };
            }
            return new InvocationService(this);
        }
    }
}
