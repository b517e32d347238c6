package dev.trafficshaper.lifecycle;

import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseAttempt;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Admission;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The Queue Processor: while it holds a model's lease, reads the queue heads, lets the pacer pick
 * what may go and when, marks the picks ADMITTED in fenced batches and dispatches each to the
 * Bedrock Processor at its slot. It watches what it dispatched: a settled request books its actual
 * usage in the pacer, a request that came back to the queue was throttled and lowers the pacer's
 * target. The decisions are {@link DrainerCore}'s (pure, clock-free); this class is the I/O loop
 * around it and the lease's lifetime (acquire, re-acquire after a racing enqueue, wake a successor).
 *
 * <p>Load states: <b>draining</b> (heads present; admit or sleep until the pacer's next slot);
 * <b>settling</b> (queue empty, dispatched requests still running: stay to learn their usage and
 * any throttle); <b>idle</b> (nothing queued or running: publish the status, release the lease,
 * look once more so an enqueue that raced the release is not stranded, and stop);
 * <b>out of time</b> (the caller's stop time is near: hand the pacer's state and the core's
 * memory of transient failures ({@link BackoffState}) over through the status board, release, and
 * wake a successor).
 *
 * <p>Calls in the drainer ({@link DispatchMode#INLINE}, with {@link InlineCalls}): a request whose
 * call fits in the drainer's {@link DrainWindow} runs on one of the drainer's threads instead of
 * being dispatched; its end is fed to the core on the loop's thread, without a status read. None
 * starts once the lease is lost. After the session ends — successor woken, lease released — the
 * drain waits for its calls to end before it returns.
 */
public final class DrainService {

    private final ModelCatalog catalog;
    private final RequestQueue queue;
    private final RequestStore requests;
    private final DrainerLeases leases;
    private final ModelStatusBoard board;
    private final InvocationDispatch dispatch;
    private final DrainerWake wake;
    private final WorkflowCallback callback;
    private final PacerHandoff handoff;
    private final ShaperMetrics metrics;
    private final DrainClock clock;
    private final DrainSettings settings;
    private final Sweeper sweeper;
    private final InlineCalls inline;

    private DrainService(Builder b) {
        this.catalog = b.catalog;
        this.queue = b.queue;
        this.requests = b.requests;
        this.leases = b.leases;
        this.board = b.board;
        this.dispatch = b.dispatch;
        this.wake = b.wake;
        this.callback = b.callback;
        this.handoff = b.handoff;
        this.metrics = b.metrics;
        this.clock = b.clock;
        this.settings = b.settings;
        this.sweeper = b.sweeper;
        this.inline = b.inline;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** What one drain did, for logs and tests. */
    public record Report(String modelKey, boolean leaseGranted, int admitted, int expired, int throttled,
                         int settled, String stoppedBecause) {
    }

    /**
     * Drains {@code modelKey} until it is idle or {@code stopByMillis}, whichever comes first.
     * Returns at once when another drainer holds the lease.
     */
    public Report drain(String modelKey, String owner, long stopByMillis) throws InterruptedException {
        return drain(modelKey, owner, DrainWindow.until(stopByMillis));
    }

    /**
     * Drains {@code modelKey} within an invocation that started at {@code nowMillis} and is cut off
     * at {@code endMillis}: stops admitting, and hands off, when {@link DrainWindow#forInvocation}
     * says for the configured dispatch mode, and returns once the calls it ran itself have ended.
     */
    public Report drainInvocation(String modelKey, String owner, long nowMillis, long endMillis)
            throws InterruptedException {
        return drain(modelKey, owner, DrainWindow.forInvocation(mode(), catalog.require(modelKey), nowMillis,
                endMillis));
    }

    /** The dispatch mode in force: inline only when configured and given {@link InlineCalls}. */
    public DispatchMode mode() {
        return inline != null && settings.dispatchMode() == DispatchMode.INLINE ? DispatchMode.INLINE
                : DispatchMode.ASYNC;
    }

    /** Drains {@code modelKey} within {@code window}; returns at once when another drainer holds the lease. */
    public Report drain(String modelKey, String owner, DrainWindow window) throws InterruptedException {
        long stopByMillis = window.stopByMillis();
        long admittingSince = clock.nowMillis();
        ModelConfig model = catalog.require(modelKey);
        Session session = null;
        String stopped;
        while (true) {
            long now = clock.nowMillis();
            LeaseAttempt attempt = leases.acquire(modelKey, owner, settings.leaseMillis(), now);
            if (!attempt.granted()) {
                stopped = session == null ? "lease held by " + attempt.lease().owner() : "lease taken over";
                break;
            }
            Pacer pacer;
            BackoffState backoff;
            if (session == null) {
                Optional<ModelStatus> last = board.read(modelKey);
                pacer = handoff.resume(model, last, now);
                backoff = handoff.resumeBackoff(last, now);
            } else {
                pacer = session.pacer;
                backoff = session.backoffState(now);
            }
            session = new Session(model, attempt.lease(), pacer, backoff, session, window);
            stopped = session.run(stopByMillis, admittingSince);
            if (!stopped.equals("idle") || !hasWork(modelKey, clock.nowMillis())) {
                break;
            }
        }
        if (session == null) {
            return new Report(modelKey, false, 0, 0, 0, 0, stopped);
        }
        dispatch.flush();
        if (stopped.equals("time limit") && hasWork(modelKey, clock.nowMillis())) {
            wake.wake(modelKey);
        }
        if (inline != null) {
            // The successor already runs; the calls started here are fenced by their claims, not the lease.
            inline.awaitCalls(modelKey);
        }
        return new Report(modelKey, true, session.admitted(), session.expired(), session.throttled(),
                session.settled(), stopped);
    }

    private boolean hasWork(String modelKey, long now) {
        return !queue.heads(modelKey, 1, now).work().isEmpty();
    }

    /**
     * One lease's worth of draining: the I/O loop around a {@link DrainerCore}. Each step the core
     * asks for is one port call (or one per dispatched request); the result goes straight back to
     * the core. Counters carry over when the lease is re-acquired after idle.
     */
    private final class Session {
        private final ModelConfig model;
        private final Lease lease;
        private final Pacer pacer;
        private final BackoffState carriedBackoff;
        private final int carriedAdmitted;
        private final int carriedExpired;
        private final int carriedThrottled;
        private final int carriedSettled;
        private final DrainWindow window;
        /** Calls run in the drainer that ended, for the loop's thread to feed to the core. */
        private final Queue<EndedCall> ended = new ConcurrentLinkedQueue<>();
        private DrainerCore core;

        Session(ModelConfig model, Lease lease, Pacer pacer, BackoffState backoff, Session previous,
                DrainWindow window) {
            this.model = model;
            this.window = window;
            this.lease = lease;
            this.pacer = pacer;
            this.carriedBackoff = backoff;
            carriedAdmitted = previous == null ? 0 : previous.admitted();
            carriedExpired = previous == null ? 0 : previous.expired();
            carriedThrottled = previous == null ? 0 : previous.throttled();
            carriedSettled = previous == null ? 0 : previous.settled();
        }

        BackoffState backoffState(long nowMillis) {
            return core == null ? carriedBackoff : core.backoffState(nowMillis);
        }

        int admitted() {
            return carriedAdmitted + (core == null ? 0 : core.admittedCount());
        }

        int expired() {
            return carriedExpired + (core == null ? 0 : core.expiredCount());
        }

        int throttled() {
            return carriedThrottled + (core == null ? 0 : core.throttledCount());
        }

        int settled() {
            return carriedSettled + (core == null ? 0 : core.settledCount());
        }

        String run(long stopByMillis, long admittingSince) throws InterruptedException {
            Lease held = lease;
            long started = clock.nowMillis();
            core = DrainerCore.start(model, pacer, handoff, settings, stopByMillis, admittingSince, started);
            core.resumeBackoff(carriedBackoff, started);
            // A new holder may follow one that crashed: sweep at once, then every period.
            long nextSweep = clock.nowMillis();
            while (true) {
                long now = clock.nowMillis();
                for (EndedCall call = ended.poll(); call != null; call = ended.poll()) {
                    core.callEnded(call.requestId(), call.record(), call.reachedByMillis(), now);
                }
                if (sweeper != null && now >= nextSweep && !core.isLeaseLost()) {
                    sweeper.sweep(model, now);
                    nextSweep = now + Sweeper.PERIOD.toMillis();
                }
                DrainStep step = core.next(now);
                if (step instanceof DrainStep.Stop stop) {
                    if (!core.isLeaseLost()) {
                        // The last status stands until a successor publishes: count the queue afresh for it.
                        long at = clock.nowMillis();
                        long depth = queue.depth(model.key(), at);
                        metrics.queueDepth(model.key(), depth);
                        core.depthCounted(depth, at);
                        board.publish(core.finalStatus(at), held.fencingToken());
                        leases.release(held, at);
                    }
                    return stop.reason();
                } else if (step instanceof DrainStep.Sleep sleep) {
                    clock.sleepUntil(sleep.untilMillis());
                } else if (step instanceof DrainStep.RenewLease) {
                    Optional<Lease> renewed = leases.renew(held, settings.leaseMillis(), now);
                    if (renewed.isEmpty()) {
                        core.leaseLost(now);
                    } else {
                        held = renewed.get();
                        core.leaseRenewed(now);
                    }
                } else if (step instanceof DrainStep.ReadHeads read) {
                    // Told the time the read ended: the next refresh counts from there, so a read slower
                    // than the refresh period still leaves the loop time to admit what it read.
                    QueueHeads heads = queue.heads(model.key(), read.limitPerLane(), now);
                    core.headsRead(heads, clock.nowMillis());
                } else if (step instanceof DrainStep.Admit admit) {
                    admit(held, admit, now);
                } else if (step instanceof DrainStep.Dispatch send) {
                    for (String requestId : send.requestIds()) {
                        if (callInline(requestId, now)) {
                            core.dispatchedInline(requestId, now);
                            continue;
                        }
                        try {
                            dispatch.dispatch(model.key(), requestId);
                            core.dispatched(requestId, now);
                        } catch (RuntimeException e) {
                            core.dispatchFailed(requestId, clock.nowMillis());
                        }
                    }
                } else if (step instanceof DrainStep.Poll poll) {
                    core.polled(requests.findAll(poll.requestIds(), now), now);
                } else if (step instanceof DrainStep.Expire expire) {
                    for (QueueItem item : expire.items()) {
                        core.expired(item, expire(item, now));
                    }
                } else if (step instanceof DrainStep.CountDepth) {
                    long depth = queue.depth(model.key(), now);
                    metrics.queueDepth(model.key(), depth);
                    core.depthCounted(depth, now);
                } else if (step instanceof DrainStep.Publish publish) {
                    board.publish(publish.status(), held.fencingToken());
                    core.published(now);
                } else {
                    throw new IllegalStateException("unknown drain step " + step);
                }
            }
        }

        /** Starts the request's call on the drainer's threads when the mode, the lease, the window and a free thread allow. */
        private boolean callInline(String requestId, long now) {
            if (mode() != DispatchMode.INLINE || core.isLeaseLost()) {
                return false;
            }
            OptionalLong deadline = core.deadlineOf(requestId);
            return deadline.isPresent() && window.fits(deadline.getAsLong(), now)
                    && inline.tryStart(model.key(), requestId, (id, record, reachedBy) -> ended.add(new EndedCall(id, record, reachedBy)));
        }

        private void admit(Lease held, DrainStep.Admit admit, long now) {
            AdmitResult result;
            try {
                result = queue.admit(held, admit.items(), now);
            } catch (LeaseLostException e) {
                core.leaseLost(now);
                return;
            }
            for (Admission admission : core.admitted(result, now)) {
                metrics.admitted(model.key(), now - admission.candidate().enqueuedAtMillis(),
                        admission.reservation().tokens());
            }
        }

        private boolean expire(QueueItem item, long now) {
            TransitionResult result = queue.expire(item, now);
            if (result.applied()) {
                metrics.outcome(result.record());
                callback.resume(result.record());
            }
            return result.applied();
        }
    }

    private record EndedCall(String requestId, RequestRecord record, long reachedByMillis) {
    }

    public static final class Builder {
        private ModelCatalog catalog;
        private RequestQueue queue;
        private RequestStore requests;
        private DrainerLeases leases;
        private ModelStatusBoard board;
        private InvocationDispatch dispatch;
        private DrainerWake wake;
        private WorkflowCallback callback;
        private PacerHandoff handoff = PacerHandoff.fresh();
        private ShaperMetrics metrics = ShaperMetrics.NONE;
        private DrainClock clock = DrainClock.system();
        private DrainSettings settings = DrainSettings.defaults();
        private Sweeper sweeper;
        private InlineCalls inline;

        private Builder() {
        }

        public Builder catalog(ModelCatalog value) { this.catalog = value; return this; }
        public Builder queue(RequestQueue value) { this.queue = value; return this; }
        public Builder requests(RequestStore value) { this.requests = value; return this; }
        public Builder leases(DrainerLeases value) { this.leases = value; return this; }
        public Builder board(ModelStatusBoard value) { this.board = value; return this; }
        public Builder dispatch(InvocationDispatch value) { this.dispatch = value; return this; }
        public Builder wake(DrainerWake value) { this.wake = value; return this; }
        public Builder callback(WorkflowCallback value) { this.callback = value; return this; }
        public Builder handoff(PacerHandoff value) { this.handoff = value; return this; }
        public Builder metrics(ShaperMetrics value) { this.metrics = value; return this; }
        public Builder clock(DrainClock value) { this.clock = value; return this; }
        public Builder settings(DrainSettings value) { this.settings = value; return this; }
        /** Run as the drain starts and every {@link Sweeper#PERIOD}; none by default. */
        public Builder sweeper(Sweeper value) { this.sweeper = value; return this; }
        /** Where calls run in the drainer when the settings say {@link DispatchMode#INLINE}; none by default. */
        public Builder inline(InlineCalls value) { this.inline = value; return this; }

        public DrainService build() {
            if (catalog == null || queue == null || requests == null || leases == null || board == null
                    || dispatch == null || wake == null || callback == null) {
                throw new IllegalStateException("catalog, queue, requests, leases, board, dispatch, wake and callback"
                        + " are required");
            }
            return new DrainService(this);
        }
    }
}
