package dev.trafficshaper.lifecycle;

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
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.TransitionResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * The drainer of one model as a pure state machine: given what the I/O loop reports (heads read,
 * picks admitted, dispatches done, statuses polled, the lease renewed or lost) and the time, it says
 * what to do next ({@link DrainStep}). It owns the model's {@link Pacer}; it does no I/O and reads no
 * clock, so the Queue Processor Lambda, the local runtime and the simulator all run this same code.
 *
 * <p>Why it looks like this:
 * <ul>
 *   <li><b>Batched, fenced admission.</b> Every admission is a fenced write, and one call costs
 *       milliseconds. Asking the pacer for every slot up to {@code admitLookaheadMillis} ahead and
 *       writing them in one batch ({@code admitBatch} at most) makes the write rate independent of
 *       the admission rate; each request is still dispatched at its own slot, so Bedrock sees the
 *       pacer's even spacing. The pacer's time never runs backwards: slots booked ahead are the
 *       pacer's "now" until the clock catches up.
 *   <li><b>Heads sized to the rate.</b> The heads window holds at least {@code headsPerLane} per
 *       lane and grows with the admission rate (two refresh periods' worth, and at least double a
 *       full window that was used up, up to {@code maxHeadsPerLane}); it is read again when it runs low, at most every
 *       {@link DrainSettings#MIN_HEADS_GAP_MILLIS}, and every {@code headsRefreshMillis} anyway
 *       so new interactive work is seen.
 *   <li><b>Settlement by polling, or told.</b> A call the drainer runs itself reports how it left
 *       the request ({@link #callEnded}); the rest are polled. A dispatched request that ended books its actual usage; one
 *       back in QUEUED was throttled (the target drops) or failed transiently (its reservation is
 *       released); one never seen again is released after {@code stuckMillis}. One that ended
 *       {@code MODEL_TIMEOUT} may have run: its reservation stays charged, as Bedrock's would.
 *   <li><b>Backoff and outages.</b> A request back from a failure that proves Bedrock did nothing
 *       is held out of the pacer's offers for a backoff ({@link TransientBackoff}); a run of such
 *       returns is an outage: admission pauses and one probe at a time goes out until Bedrock
 *       answers one.
 * </ul>
 *
 * <p>Load states: <b>draining</b> (heads present: admit, or sleep until the pacer's next slot);
 * <b>settling</b> (no heads, dispatched requests still running: poll them); <b>idle</b> (nothing
 * queued, pending or running: {@code Stop("idle")}); <b>out of time</b> ({@code Stop("time limit")}
 * once what was admitted is dispatched); <b>lease lost</b> (dispatch what was already written
 * ADMITTED under the lease, then stop, publishing nothing).
 *
 * <p>Not thread-safe: one I/O loop drives one core.
 */
public final class DrainerCore {

    private record Pick(Admission admission, QueueItem item) {
    }

    private record Due(long atMillis, String requestId) {
    }

    private final ModelConfig model;
    private final Pacer pacer;
    private final PacerHandoff handoff;
    private final DrainSettings settings;
    private final long stopByMillis;
    /** When the drainer (its invocation, not this lease's session) started admitting. */
    private final long admittingSinceMillis;

    private final Map<String, QueueItem> heads = new LinkedHashMap<>();
    /** The heads as candidates, per lane and tenant in the pacer's order: only the first of each is offered. */
    private final Map<String, TreeSet<Candidate>> candidates = new LinkedHashMap<>();
    /** Picks handed to the loop in an {@link DrainStep.Admit}, until it reports the write. */
    private final Map<String, Pick> writing = new HashMap<>();
    /** Written ADMITTED, waiting for their slot (or a retry) to be dispatched, in slot order. */
    private final ArrayDeque<Due> due = new ArrayDeque<>();
    private final List<Due> retries = new ArrayList<>();
    /** Dispatched (or due), until their outcome is polled. */
    private final Map<String, Pick> inFlight = new LinkedHashMap<>();
    /** The in-flight requests whose call the drainer runs itself: they report their end, and are not polled. */
    private final Set<String> calledInline = new HashSet<>();
    /**
     * A predecessor's calls still open at its hand-off ({@link Pacer#takeCarriedCalls}): polled like
     * dispatches, settled when their status shows the outcome; one never seen ended stays charged.
     */
    private final Map<String, Admission> carried = new LinkedHashMap<>();
    private final List<QueueItem> toExpire = new ArrayList<>();
    private final Map<String, Integer> dispatchFailures = new HashMap<>();
    private final TransientBackoff backoff = TransientBackoff.defaults();
    /** Transient returns in a row per request, and when each may be offered to the pacer again. */
    private final Map<String, Integer> transientFailures = new HashMap<>();
    private final Map<String, Long> notBefore = new HashMap<>();
    private int transientRun;
    private boolean outage;
    private int outageProbes;
    private long nextProbeAt;
    private String probeId;
    /** The earliest end of a backoff among the heads last read and held back; MAX_VALUE when none. */
    private long backoffEndsAt = Long.MAX_VALUE;

    private long pacerMillis = Long.MIN_VALUE;
    private long nextPacerMillis = Long.MIN_VALUE;
    private long nextRenew;
    private long nextHeads;
    private long lastHeadsRead = Long.MIN_VALUE;
    private long headsReadPacerMillis;
    private int headsLimit;
    private final List<String> fullFlows = new ArrayList<>();
    private boolean lastReadEmpty;
    /** Admissions since the last heads read, per flow (lane/tenant): the window is sized for the busiest. */
    private final Map<String, Integer> admittedSinceHeads = new HashMap<>();
    private long nextPoll;
    private long nextStatus;
    private long nextDepth;
    private long depth;
    private boolean leaseLost;
    private boolean timeUp;

    private int admittedCount;
    private int expiredCount;
    private int throttledCount;
    private int settledCount;

    private DrainerCore(ModelConfig model, Pacer pacer, PacerHandoff handoff, DrainSettings settings,
                        long stopByMillis, long admittingSinceMillis, long nowMillis) {
        this.model = model;
        this.pacer = pacer;
        this.handoff = handoff;
        this.settings = settings;
        this.stopByMillis = stopByMillis;
        this.admittingSinceMillis = admittingSinceMillis;
        this.headsLimit = settings.headsPerLane();
        this.nextRenew = nowMillis + settings.leaseMillis() / 3;
        this.nextHeads = nowMillis;
        this.nextPoll = nowMillis;
        this.nextStatus = nowMillis;
        this.nextDepth = nowMillis;
        for (Admission call : pacer.takeCarriedCalls()) {
            carried.put(call.requestId(), call);
        }
    }

    /** A core that has just acquired the lease at {@code nowMillis}, to drain until {@code stopByMillis}. */
    public static DrainerCore start(ModelConfig model, Pacer pacer, PacerHandoff handoff, DrainSettings settings,
                                    long stopByMillis, long nowMillis) {
        return start(model, pacer, handoff, settings, stopByMillis, nowMillis, nowMillis);
    }

    /**
     * The same, for a drainer that has been admitting since {@code admittingSinceMillis} (an
     * invocation whose lease lapsed while idle, and was taken again): a hand-off moved before a
     * turn ({@link DrainWindow#beforeTurn}) is never moved before that.
     */
    public static DrainerCore start(ModelConfig model, Pacer pacer, PacerHandoff handoff, DrainSettings settings,
                                    long stopByMillis, long admittingSinceMillis, long nowMillis) {
        return new DrainerCore(model, pacer, handoff, settings, stopByMillis, admittingSinceMillis, nowMillis);
    }

    public Pacer pacer() {
        return pacer;
    }

    public int admittedCount() {
        return admittedCount;
    }

    public int expiredCount() {
        return expiredCount;
    }

    public int throttledCount() {
        return throttledCount;
    }

    public int settledCount() {
        return settledCount;
    }

    /**
     * When admitting stops: the window's end, or just before a clock minute's turn while the pacer
     * spends each turn at once ({@link DrainWindow#beforeTurn}).
     */
    private long stopBy(long nowMillis) {
        return pacer.spendsTurnsQuickly(nowMillis) ? DrainWindow.beforeTurn(stopByMillis, admittingSinceMillis)
                : stopByMillis;
    }

    /** What to do at {@code nowMillis}. Never returns a {@link DrainStep.Sleep} that ends at or before now. */
    public DrainStep next(long nowMillis) {
        if (leaseLost) {
            // Written ADMITTED under the lease: send them rather than strand them.
            return dueNow(Long.MAX_VALUE).orElse(new DrainStep.Stop("lease lost"));
        }
        if (nowMillis >= stopBy(nowMillis)) {
            timeUp = true;
        }
        if (!timeUp && nowMillis >= nextRenew) {
            return new DrainStep.RenewLease();
        }
        DrainStep dispatch = dueNow(timeUp ? Long.MAX_VALUE : nowMillis).orElse(null);
        if (dispatch != null) {
            return dispatch;
        }
        if (timeUp) {
            return new DrainStep.Stop("time limit");
        }
        if (!toExpire.isEmpty()) {
            DrainStep.Expire expire = new DrainStep.Expire(toExpire);
            toExpire.clear();
            return expire;
        }
        if (nowMillis >= nextPoll) {
            // A steady cadence whether or not anything runs, so an outcome is learnt within one period.
            nextPoll = nowMillis + settings.pollMillis();
            List<String> polled = new ArrayList<>(inFlight.size() + carried.size());
            for (String id : inFlight.keySet()) {
                if (!calledInline.contains(id)) {
                    polled.add(id);
                }
            }
            polled.addAll(carried.keySet());
            if (!polled.isEmpty()) {
                return new DrainStep.Poll(polled);
            }
        }
        if (headsDue(nowMillis)) {
            return readHeads(nowMillis);
        }
        if (nowMillis >= nextStatus) {
            if (nowMillis >= nextDepth) {
                nextDepth = nowMillis + settings.depthMillis();
                return new DrainStep.CountDepth();
            }
            return new DrainStep.Publish(status(nowMillis));
        }
        List<QueueItem> batch = pickBatch(nowMillis);
        if (!batch.isEmpty()) {
            return new DrainStep.Admit(batch);
        }
        // A predecessor's open calls do not keep it: the final status hands them on, still charged.
        if (heads.isEmpty() && lastReadEmpty && inFlight.isEmpty() && due.isEmpty() && retries.isEmpty()) {
            return new DrainStep.Stop("idle");
        }
        return new DrainStep.Sleep(Math.max(nowMillis + 1, wakeAt(nowMillis)));
    }

    /**
     * The status to publish as the session ends (after a stop other than a lost lease); at its time
     * limit, with the calls still open for the successor to settle (an idle drainer has none of its
     * own, and publishes as it does every period).
     */
    public ModelStatus finalStatus(long nowMillis) {
        return status(nowMillis, timeUp);
    }

    /** Forces a fresh queue count into the next status (the last status stands until a successor publishes). */
    public void depthCounted(long queueDepth, long nowMillis) {
        depth = queueDepth;
        nextDepth = nowMillis + settings.depthMillis();
    }

    public void leaseRenewed(long nowMillis) {
        nextRenew = nowMillis + settings.leaseMillis() / 3;
    }

    /** The lease is gone (a renewal or a fenced write was refused); picks not yet written are released. */
    public void leaseLost(long nowMillis) {
        leaseLost = true;
        for (Pick pick : writing.values()) {
            pacer.release(pick.admission(), pacerTime(nowMillis));
        }
        writing.clear();
    }

    public boolean isLeaseLost() {
        return leaseLost;
    }

    public void headsRead(QueueHeads fresh, long nowMillis) {
        heads.clear();
        candidates.clear();
        // The read was cut short only where one flow (a lane of one tenant) filled its limit.
        Map<String, Integer> perFlow = new HashMap<>();
        fullFlows.clear();
        for (QueueItem item : fresh.work()) {
            String flow = item.lane() + "/" + item.tenant();
            if (perFlow.merge(flow, 1, Integer::sum) == headsLimit) {
                fullFlows.add(flow);
            }
            if (!inFlight.containsKey(item.requestId()) && !writing.containsKey(item.requestId())
                    && !carried.containsKey(item.requestId()) && !backingOff(item.requestId(), nowMillis)) {
                heads.put(item.requestId(), item);
                candidates.computeIfAbsent(flow, k -> new TreeSet<>(Candidate.WITHIN_TENANT)).add(new Candidate(
                        item.requestId(), item.lane(), item.tenant(), item.estimate(), item.enqueuedAtMillis(),
                        item.deadlineMillis()));
            }
        }
        backoffEndsAt = Long.MAX_VALUE;
        for (QueueItem item : fresh.work()) {
            Long until = notBefore.get(item.requestId());
            if (until != null && until > nowMillis) {
                backoffEndsAt = Math.min(backoffEndsAt, until);
            }
        }
        lastReadEmpty = fresh.work().isEmpty();
        toExpire.addAll(fresh.overdue());
        lastHeadsRead = nowMillis;
        nextHeads = nowMillis + settings.headsRefreshMillis();
    }

    /**
     * What the fenced write of an {@link DrainStep.Admit} did. Returns the admissions now ADMITTED
     * (for the loop's metrics); each is dispatched at its slot. A refused pick is released, and
     * expired when it is still queued past its deadline.
     */
    public List<Admission> admitted(AdmitResult result, long nowMillis) {
        List<Admission> admitted = new ArrayList<>(result.admitted().size());
        for (QueueItem item : result.admitted()) {
            Pick pick = writing.remove(item.requestId());
            if (pick == null) {
                continue;
            }
            admitted.add(pick.admission());
            inFlight.put(item.requestId(), pick);
            due.add(new Due(pick.admission().admittedAtMillis(), item.requestId()));
            admittedCount++;
        }
        for (TransitionResult refused : result.refused()) {
            RequestRecord record = refused.record();
            String id = record != null ? record.requestId() : null;
            Pick pick = id == null ? null : writing.remove(id);
            if (pick == null) {
                continue;
            }
            pacer.release(pick.admission(), pacerTime(nowMillis));
            forgetProbe(id);
            if (record.state() == RequestState.QUEUED && pick.item().isOverdue(nowMillis)) {
                toExpire.add(pick.item());
            }
        }
        // Anything the adapter neither admitted nor refused was not written.
        for (Pick pick : writing.values()) {
            pacer.release(pick.admission(), pacerTime(nowMillis));
            forgetProbe(pick.item().requestId());
        }
        writing.clear();
        return admitted;
    }

    public void dispatched(String requestId, long nowMillis) {
        // nothing to learn until the status is polled
    }

    /** The request's call runs in the drainer: its end is reported through {@link #callEnded}, not polled. */
    public void dispatchedInline(String requestId, long nowMillis) {
        Pick pick = inFlight.get(requestId);
        if (pick != null) {
            calledInline.add(requestId);
            pacer.started(pick.admission(), pacerTime(nowMillis));
        }
    }

    /** The deadline of an admitted request not yet known to have ended. */
    public OptionalLong deadlineOf(String requestId) {
        Pick pick = inFlight.get(requestId);
        return pick == null ? OptionalLong.empty() : OptionalLong.of(pick.item().deadlineMillis());
    }

    /**
     * A call the drainer ran itself ended, leaving the request as {@code record}: booked as a poll
     * would book it. Without a record, or with one still running elsewhere, the request is polled
     * from now on.
     */
    public void callEnded(String requestId, RequestRecord record, long reachedByMillis, long nowMillis) {
        Pick pick = inFlight.get(requestId);
        calledInline.remove(requestId);
        if (pick == null || record == null) {
            return;
        }
        if (reachedByMillis != InvocationService.Ended.NOT_CALLED) {
            pacer.reached(pick.admission(), reachedByMillis, pacerTime(nowMillis));
        }
        if (book(requestId, pick.admission(), record, pacerTime(nowMillis), nowMillis)) {
            inFlight.remove(requestId);
        }
    }

    /** The dispatch call failed: try again later, a few times; the processor's claim makes a repeat harmless. */
    public void dispatchFailed(String requestId, long nowMillis) {
        int failures = dispatchFailures.merge(requestId, 1, Integer::sum);
        if (failures < settings.dispatchAttempts() && inFlight.containsKey(requestId)) {
            retries.add(new Due(nowMillis + settings.dispatchRetryMillis(), requestId));
        }
    }

    public void expired(QueueItem item, boolean applied) {
        if (applied) {
            expiredCount++;
        }
    }

    /** Books what became of dispatched requests: usage, a throttle, a release, or nothing yet. */
    public void polled(Map<String, RequestRecord> records, long nowMillis) {
        long at = pacerTime(nowMillis);
        for (var it = inFlight.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            String id = entry.getKey();
            if (calledInline.contains(id)) {
                continue; // its call reports its end
            }
            Admission admission = entry.getValue().admission();
            if (book(id, admission, records.get(id), at, nowMillis)) {
                it.remove();
            } else if (nowMillis - admission.admittedAtMillis() > settings.stuckMillis()) {
                forgetProbe(id);
                it.remove();
            }
        }
        for (var it = carried.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            String id = entry.getKey();
            Admission admission = entry.getValue();
            RequestRecord record = records.get(id);
            if (record == null || nowMillis - admission.admittedAtMillis() > settings.stuckMillis()) {
                it.remove(); // nothing learnt: it stays charged until it leaves the window
            } else if (book(id, admission, record, at, nowMillis)) {
                it.remove();
            }
        }
    }

    /** Books what became of one request; returns whether it is done with (no longer in flight). */
    private boolean book(String id, Admission admission, RequestRecord record, long at, long nowMillis) {
        if (record == null) {
            pacer.release(admission, at);
            forgetProbe(id);
            return true;
        } else if (record.state() == RequestState.QUEUED) {
            // back in the queue after our admission: the processor requeued it
            if (RequeueSignal.isThrottle(record)) {
                pacer.throttled(admission, at);
                throttledCount++; // the Bedrock Processor already counted it in the metrics
                answered(id);
            } else {
                pacer.release(admission, at);
                if (RequeueSignal.isTransient(record)) {
                    backOff(id, nowMillis);
                }
            }
            forgetProbe(id);
            return true;
        } else if (record.isTerminal()) {
            if (record.actualUsage() != null) {
                pacer.settle(admission, record.actualUsage(), record.startedAtMillis(), record.finishedAtMillis(), at);
            } else if (record.failureReason() != FailureReason.MODEL_TIMEOUT) {
                pacer.release(admission, at);
            } // else it may have run: it stays charged at its reservation, as Bedrock's call would
            if (record.state() == RequestState.SUCCEEDED) {
                answered(id);
            }
            transientFailures.remove(id);
            forgetProbe(id);
            settledCount++;
            return true;
        }
        return false;
    }

    /** Whether admission is paused for an outage (one probe at a time). */
    public boolean inOutage() {
        return outage;
    }

    /**
     * What this drainer remembers of transient failures at {@code nowMillis}, for a successor
     * ({@link BackoffState}): the run, the outage and its probe backoff, and the requests still
     * waiting out their own backoff (those waiting longest, at most {@link BackoffState#MAX_WAITING}).
     */
    public BackoffState backoffState(long nowMillis) {
        List<BackoffState.Waiting> waiting = new ArrayList<>();
        notBefore.forEach((id, until) -> {
            if (until > nowMillis) {
                waiting.add(new BackoffState.Waiting(id, transientFailures.getOrDefault(id, 1), until));
            }
        });
        waiting.sort(Comparator.comparingLong(BackoffState.Waiting::notBeforeMillis).reversed()
                .thenComparing(BackoffState.Waiting::requestId));
        List<BackoffState.Waiting> kept = new ArrayList<>(waiting.subList(0, Math.min(waiting.size(),
                BackoffState.MAX_WAITING)));
        kept.sort(Comparator.comparingLong(BackoffState.Waiting::notBeforeMillis)
                .thenComparing(BackoffState.Waiting::requestId));
        return new BackoffState(transientRun, outage, outage ? outageProbes : 0,
                outage ? nextProbeAt : BackoffState.NEVER, kept);
    }

    /**
     * Continues a predecessor's memory of transient failures (see {@link BackoffState}), before
     * the first step: in an outage the first probe goes once the predecessor's probe backoff has
     * passed, and a request still backing off waits out the rest of its backoff.
     */
    public void resumeBackoff(BackoffState state, long nowMillis) {
        transientRun = state.transientRun();
        outage = state.outage();
        if (outage) {
            outageProbes = state.outageProbes();
            nextProbeAt = state.nextProbeAtMillis();
        }
        for (BackoffState.Waiting waiting : state.waiting()) {
            if (waiting.notBeforeMillis() > nowMillis) {
                transientFailures.put(waiting.requestId(), waiting.failures());
                notBefore.put(waiting.requestId(), waiting.notBeforeMillis());
            }
        }
    }

    private boolean backingOff(String requestId, long nowMillis) {
        Long until = notBefore.get(requestId);
        if (until == null) {
            return false;
        }
        if (until <= nowMillis) {
            notBefore.remove(requestId);
            return false;
        }
        return true;
    }

    /** A transient return: the request waits its backoff; a run of them is an outage. */
    private void backOff(String requestId, long nowMillis) {
        int failures = transientFailures.merge(requestId, 1, Integer::sum);
        notBefore.put(requestId, nowMillis + backoff.delayMillis(requestId, failures));
        transientRun++;
        if (requestId.equals(probeId)) {
            outageProbes++;
            nextProbeAt = nowMillis + backoff.delayMillis("outage probe", outageProbes + 1);
        } else if (!outage && transientRun >= backoff.outageAfter()) {
            outage = true;
            outageProbes = 0;
            nextProbeAt = nowMillis + backoff.delayMillis("outage probe", 1);
        }
    }

    /** Bedrock answered a call (a result or a throttle): whatever outage there was is over. */
    private void answered(String requestId) {
        transientRun = 0;
        outage = false;
        transientFailures.remove(requestId);
    }

    private void forgetProbe(String requestId) {
        if (requestId.equals(probeId)) {
            probeId = null;
        }
    }

    public void published(long nowMillis) {
        nextStatus = nowMillis + settings.statusMillis();
    }

    /** Requests dispatched and not yet known to have ended. */
    public Collection<String> inFlight() {
        return List.copyOf(inFlight.keySet());
    }

    private Optional<DrainStep> dueNow(long untilMillis) {
        List<String> ids = new ArrayList<>();
        while (!due.isEmpty() && due.peekFirst().atMillis() <= untilMillis) {
            ids.add(due.pollFirst().requestId());
        }
        for (var it = retries.iterator(); it.hasNext(); ) {
            Due retry = it.next();
            if (retry.atMillis() <= untilMillis) {
                ids.add(retry.requestId());
                it.remove();
            }
        }
        return ids.isEmpty() ? Optional.empty() : Optional.of(new DrainStep.Dispatch(ids));
    }

    private boolean headsDue(long nowMillis) {
        if (nowMillis >= nextHeads) {
            return true;
        }
        if (nowMillis < lastHeadsRead + DrainSettings.MIN_HEADS_GAP_MILLIS) {
            return false;
        }
        if (heads.isEmpty() && backoffEndsAt != Long.MAX_VALUE) {
            // What is left is backing off: read again when the first backoff ends, not every gap.
            return nowMillis >= backoffEndsAt;
        }
        // Running low: all that was read is taken, or a flow that filled its limit is mostly consumed.
        if (heads.isEmpty() && !lastReadEmpty) {
            return true;
        }
        for (String flow : fullFlows) {
            TreeSet<Candidate> left = candidates.get(flow);
            if (left == null || left.size() * 4 < headsLimit) {
                return true;
            }
        }
        return false;
    }

    private DrainStep readHeads(long nowMillis) {
        // The rate over the pacer's own time: slots booked ahead count where they fall.
        long pacerNow = pacerTime(nowMillis);
        if (lastHeadsRead != Long.MIN_VALUE && pacerNow > headsReadPacerMillis) {
            int busiest = admittedSinceHeads.values().stream().mapToInt(Integer::intValue).max().orElse(0);
            double perMillis = (double) busiest / (pacerNow - headsReadPacerMillis);
            long wanted = (long) Math.ceil(perMillis * 2 * settings.headsRefreshMillis());
            if (fullFlows.stream().anyMatch(flow -> !candidates.containsKey(flow))) {
                wanted = Math.max(wanted, 2L * headsLimit); // a full flow used up: its rate is at least this
            }
            headsLimit = (int) Math.max(settings.headsPerLane(), Math.min(settings.maxHeadsPerLane(), wanted));
        }
        nextHeads = nowMillis + settings.headsRefreshMillis();
        lastHeadsRead = nowMillis;
        headsReadPacerMillis = pacerNow;
        admittedSinceHeads.clear();
        return new DrainStep.ReadHeads(headsLimit);
    }

    private List<QueueItem> pickBatch(long nowMillis) {
        List<QueueItem> batch = new ArrayList<>();
        if (candidates.isEmpty()) {
            nextPacerMillis = Long.MAX_VALUE;
            return batch;
        }
        long horizon = Math.min(nowMillis + settings.admitLookaheadMillis(), stopBy(nowMillis) - 1);
        long at = pacerTime(nowMillis);
        int limit = settings.admitBatch();
        if (outage) {
            // One probe at a time, once its backoff has passed; the rest wait in the queue.
            if (probeId != null || nowMillis < nextProbeAt) {
                nextPacerMillis = probeId != null ? Long.MAX_VALUE : nextProbeAt;
                return batch;
            }
            limit = 1;
        }
        while (batch.size() < limit && at <= horizon && !candidates.isEmpty()) {
            Decision decision = pacer.decide(offers(), at);
            if (decision instanceof Decision.Admit admit) {
                Candidate chosen = admit.candidate();
                String id = chosen.requestId();
                QueueItem item = heads.remove(id);
                String key = chosen.lane() + "/" + chosen.tenant();
                TreeSet<Candidate> ofTenant = candidates.get(key);
                ofTenant.remove(chosen);
                if (ofTenant.isEmpty()) {
                    candidates.remove(key);
                }
                writing.put(id, new Pick(admit.admission(), item));
                batch.add(item);
                if (outage) {
                    probeId = id;
                }
                pacerMillis = at;
                admittedSinceHeads.merge(key, 1, Integer::sum);
            } else if (decision instanceof Decision.WaitUntil wait) {
                nextPacerMillis = wait.atMillis();
                if (wait.atMillis() > horizon) {
                    break;
                }
                at = Math.max(at, wait.atMillis());
            } else {
                nextPacerMillis = Long.MAX_VALUE;
                break;
            }
        }
        return batch;
    }

    /** The first head of each lane and tenant: the pacer's choice among all heads is among these. */
    private List<Candidate> offers() {
        List<Candidate> offers = new ArrayList<>(candidates.size());
        for (TreeSet<Candidate> ofTenant : candidates.values()) {
            offers.add(ofTenant.first());
        }
        return offers;
    }

    private long wakeAt(long nowMillis) {
        long wake = Math.min(nextRenew, stopBy(nowMillis));
        if (!calledInline.isEmpty() && pacer.spendsTurnsQuickly(nowMillis)) {
            // a last look before the turn: a call run here that ended late in the minute refunds
            // it, and the poll's phase would leave up to half a second of such refunds to the next
            // turn (a dispatched call's end is learnt by the poll alone)
            wake = Math.min(wake, pacer.lookBeforeTurn(nowMillis));
        }
        if (!candidates.isEmpty()) {
            wake = Math.min(wake, nextPacerMillis);
        }
        if (!due.isEmpty()) {
            wake = Math.min(wake, due.peekFirst().atMillis());
        }
        for (Due retry : retries) {
            wake = Math.min(wake, retry.atMillis());
        }
        if (!inFlight.isEmpty() || !carried.isEmpty()) {
            wake = Math.min(wake, nextPoll);
        }
        wake = Math.min(wake, nextHeads);
        if (heads.isEmpty() && backoffEndsAt != Long.MAX_VALUE) {
            wake = Math.min(wake, Math.max(backoffEndsAt, lastHeadsRead + DrainSettings.MIN_HEADS_GAP_MILLIS));
        } else if (heads.isEmpty() && !lastReadEmpty) {
            wake = Math.min(wake, lastHeadsRead + DrainSettings.MIN_HEADS_GAP_MILLIS);
        }
        return Math.min(wake, nextStatus);
    }

    /** The pacer's time: never behind a slot it has already booked. */
    private long pacerTime(long nowMillis) {
        return Math.max(nowMillis, pacerMillis);
    }

    private ModelStatus status(long nowMillis) {
        return status(nowMillis, false);
    }

    private ModelStatus status(long nowMillis, boolean handingOver) {
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
        long at = pacerTime(nowMillis);
        PacerSnapshot snapshot = pacer.snapshot(at);
        return new ModelStatus(model.key(), nowMillis, Math.max(depth, seen), interactive, bulk,
                snapshot.nextSlotMillis(), snapshot.target(), snapshot.admitted(), snapshot.throttles(),
                handingOver ? handoff.export(pacer, backoffState(nowMillis), openAdmissions(), at)
                        : handoff.export(pacer, backoffState(nowMillis), at));
    }

    /** The admissions not yet known to have ended: this drainer's and its predecessor's. */
    private List<Admission> openAdmissions() {
        List<Admission> open = new ArrayList<>(inFlight.size() + carried.size());
        for (Pick pick : inFlight.values()) {
            open.add(pick.admission());
        }
        open.addAll(carried.values());
        return open;
    }
}
