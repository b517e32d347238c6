package dev.trafficshaper.lifecycle;

import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseAttempt;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Admission;
import dev.trafficshaper.pacing.Candidate;
import dev.trafficshaper.pacing.Decision;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerSnapshot;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Queue Processor: while it holds a model's lease, reads the queue heads, lets the pacer pick
 * what may go and when, marks each pick ADMITTED (fenced by the lease) and dispatches it to the
 * Bedrock Processor. It watches what it dispatched: a settled request books its actual usage in
 * the pacer, a request that came back to the queue was throttled and lowers the pacer's target.
 *
 * <p>Load states: <b>draining</b> (heads present; admit or sleep until the pacer's next slot);
 * <b>settling</b> (queue empty, dispatched requests still running: stay to learn their usage and
 * any throttle); <b>idle</b> (nothing queued or running: publish the status, release the lease,
 * look once more so an enqueue that raced the release is not stranded, and stop);
 * <b>out of time</b> (the caller's stop time is near: hand the pacer's state over through the
 * status board, release, and wake a successor).
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
            Pacer pacer = session == null ? handoff.resume(model, board.read(modelKey), now) : session.pacer;
            session = new Session(model, attempt.lease(), pacer, session);
            stopped = session.run(stopByMillis);
            if (!stopped.equals("idle") || !hasWork(modelKey, clock.nowMillis())) {
                break;
            }
        }
        if (session == null) {
            return new Report(modelKey, false, 0, 0, 0, 0, stopped);
        }
        if (stopped.equals("time limit") && hasWork(modelKey, clock.nowMillis())) {
            wake.wake(modelKey);
        }
        return new Report(modelKey, true, session.admitted, session.expired, session.throttled, session.settled,
                stopped);
    }

    private boolean hasWork(String modelKey, long now) {
        return !queue.heads(modelKey, 1, now).work().isEmpty();
    }

    private record InFlight(Admission admission, QueueItem item) {
    }

    /** One lease's worth of draining; counters carry over when the lease is re-acquired after idle. */
    private final class Session {
        private final ModelConfig model;
        private final Lease lease;
        private final Pacer pacer;
        private final Map<String, InFlight> inFlight = new LinkedHashMap<>();
        private final Map<String, QueueItem> heads = new LinkedHashMap<>();
        private long nextRenew;
        private long nextHeads;
        private long nextPoll;
        private long nextStatus;
        private long nextDepth;
        private long depth;
        private int admitted;
        private int expired;
        private int throttled;
        private int settled;

        Session(ModelConfig model, Lease lease, Pacer pacer, Session previous) {
            this.model = model;
            this.lease = lease;
            this.pacer = pacer;
            if (previous != null) {
                admitted = previous.admitted;
                expired = previous.expired;
                throttled = previous.throttled;
                settled = previous.settled;
            }
        }

        String run(long stopByMillis) throws InterruptedException {
            Lease held = lease;
            String stopped;
            try {
                while (true) {
                    long now = clock.nowMillis();
                    if (now >= stopByMillis) {
                        stopped = "time limit";
                        break;
                    }
                    if (now >= nextRenew) {
                        Optional<Lease> renewed = leases.renew(held, settings.leaseMillis(), now);
                        if (renewed.isEmpty()) {
                            stopped = "lease lost";
                            held = null;
                            break;
                        }
                        held = renewed.get();
                        nextRenew = now + settings.leaseMillis() / 3;
                    }
                    if (now >= nextPoll) {
                        poll(now);
                        nextPoll = now + settings.pollMillis();
                    }
                    if (now >= nextHeads || heads.isEmpty() && now >= nextHeads - settings.headsRefreshMillis() + 100) {
                        refreshHeads(now);
                        nextHeads = now + settings.headsRefreshMillis();
                    }
                    if (now >= nextStatus) {
                        publish(now);
                    }
                    Decision decision = pacer.decide(candidates(), now);
                    if (decision instanceof Decision.Admit admit) {
                        admit(held, admit.admission(), now);
                    } else if (decision instanceof Decision.WaitUntil wait) {
                        clock.sleepUntil(Math.min(wait.atMillis(), nextHousekeeping(stopByMillis)));
                    } else if (inFlight.isEmpty()) {
                        stopped = "idle";
                        break;
                    } else {
                        clock.sleepUntil(Math.min(nextPoll, nextHousekeeping(stopByMillis)));
                    }
                }
            } catch (LeaseLostException e) {
                stopped = "lease lost";
                held = null;
            }
            if (held != null) {
                // The last status stands until a successor publishes: count the queue afresh for it.
                long now = clock.nowMillis();
                nextDepth = now;
                publish(now);
                leases.release(held, now);
            }
            return stopped;
        }

        private long nextHousekeeping(long stopByMillis) {
            return Math.min(Math.min(nextRenew, nextPoll), Math.min(Math.min(nextHeads, nextStatus), stopByMillis));
        }

        private List<Candidate> candidates() {
            List<Candidate> candidates = new ArrayList<>(heads.size());
            for (QueueItem item : heads.values()) {
                candidates.add(new Candidate(item.requestId(), item.lane(), item.tenant(), item.estimate(),
                        item.enqueuedAtMillis(), item.deadlineMillis()));
            }
            return candidates;
        }

        private void refreshHeads(long now) {
            QueueHeads fresh = queue.heads(model.key(), settings.headsPerLane(), now);
            heads.clear();
            for (QueueItem item : fresh.work()) {
                if (!inFlight.containsKey(item.requestId())) {
                    heads.put(item.requestId(), item);
                }
            }
            for (QueueItem item : fresh.overdue()) {
                expire(item, now);
            }
        }

        private void expire(QueueItem item, long now) {
            TransitionResult result = queue.expire(item, now);
            if (result.applied()) {
                expired++;
                metrics.outcome(result.record());
                callback.resume(result.record());
            }
        }

        private void admit(Lease held, Admission admission, long now) {
            QueueItem item = heads.remove(admission.requestId());
            AdmitResult result = queue.admit(held, List.of(item), now);
            if (result.admitted().isEmpty()) {
                pacer.release(admission, now);
                for (TransitionResult refused : result.refused()) {
                    if (refused.record() != null && refused.state() == RequestState.QUEUED
                            && item.isOverdue(now)) {
                        expire(item, now);
                    }
                }
                return;
            }
            admitted++;
            inFlight.put(item.requestId(), new InFlight(admission, item));
            metrics.admitted(model.key(), now - item.enqueuedAtMillis(), admission.reservation().tokens());
            dispatch.dispatch(model.key(), item.requestId());
        }

        /** Books what became of dispatched requests: usage, a throttle, or nothing to learn. */
        private void poll(long now) {
            if (inFlight.isEmpty()) {
                return;
            }
            Map<String, RequestRecord> records = requests.findAll(new ArrayList<>(inFlight.keySet()), now);
            for (var it = inFlight.entrySet().iterator(); it.hasNext(); ) {
                var entry = it.next();
                Admission admission = entry.getValue().admission();
                RequestRecord record = records.get(entry.getKey());
                if (record == null) {
                    pacer.release(admission, now);
                    it.remove();
                } else if (record.state() == RequestState.QUEUED) {
                    // back in the queue after our admission: the processor requeued it
                    if (record.detail() != null && record.detail().startsWith(InvocationService.THROTTLED)) {
                        pacer.throttled(admission, now);
                        throttled++; // the Bedrock Processor already counted it in the metrics
                    } else {
                        pacer.release(admission, now);
                    }
                    it.remove();
                } else if (record.isTerminal()) {
                    if (record.actualUsage() != null) {
                        pacer.settle(admission, record.actualUsage(), now);
                    } else {
                        pacer.release(admission, now);
                    }
                    settled++;
                    it.remove();
                } else if (now - admission.admittedAtMillis() > settings.stuckMillis()) {
                    it.remove();
                }
            }
        }

        private void publish(long now) {
            if (now >= nextDepth) {
                depth = queue.depth(model.key(), now);
                nextDepth = now + settings.depthMillis();
                metrics.queueDepth(model.key(), depth);
            }
            double interactive = 0;
            double bulk = 0;
            for (QueueItem item : heads.values()) {
                double cost = pacer.normalizedCost(item.estimate());
                if (item.lane() == Lane.BULK) {
                    bulk += cost;
                } else {
                    interactive += cost;
                }
            }
            long seen = heads.size();
            if (seen > 0 && depth > seen) {
                double scale = (double) depth / seen;
                interactive *= scale;
                bulk *= scale;
            }
            PacerSnapshot snapshot = pacer.snapshot(now);
            board.publish(new ModelStatus(model.key(), now, Math.max(depth, seen), interactive, bulk,
                    snapshot.nextSlotMillis(), snapshot.target(), snapshot.admitted(), snapshot.throttles(),
                    handoff.export(pacer, now)));
            nextStatus = now + settings.statusMillis();
        }
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
