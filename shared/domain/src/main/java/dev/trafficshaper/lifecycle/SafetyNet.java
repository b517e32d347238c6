package dev.trafficshaper.lifecycle;

import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.TransitionResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The periodic sweep under the wake-ups: finds the models nobody is draining and puts their queues
 * in order. The Queue Processor's 1-minute schedule and the local runtime's 1-second timer both run
 * this one sweep.
 *
 * <p>Why it is needed at all: every path that queues work wakes a drainer (admission, requeue,
 * handoff), and a drainer looks once more after it releases its lease. A wake-up can still be lost
 * — an asynchronous invoke dropped by the reserved concurrency, a drainer that crashed and whose
 * lease ran out, a process that restarted — and then the queue waits for nobody.
 *
 * <p>Per model, at {@code now}:
 * <ul>
 *   <li><b>leased</b>: nothing to do. The holder re-reads its heads every second and expires what is
 *       overdue itself; a holder that died loses its lease within the lease length, and a later
 *       sweep finds the model unleased.
 *   <li><b>unleased, work queued</b>: wake a drainer.
 *   <li><b>unleased, items past their deadline</b>: expire them here (EXPIRED, the workflow resumed,
 *       the outcome counted), at most {@code maxExpiriesPerModel} per sweep. A queue that holds only
 *       overdue items has no work to wake a drainer for, and without this nobody would expire them
 *       before the workflow's own timeout.
 * </ul>
 *
 * <p>With a {@link Sweeper}, every model's unsettled admissions are swept first, leased or not:
 * a drainer that crashed still holds its lease for up to its length, and its admissions written
 * ahead of their slots must not wait for its successor.
 *
 * <p>Races: an expiry is the same conditional transition the drainer writes (from QUEUED or
 * ADMITTED), and an overdue item can no longer be admitted (admission requires an open deadline).
 * A drainer that starts meanwhile and expires the same item either wins or finds it done, so each
 * workflow is resumed once.
 */
public final class SafetyNet {

    /** Expiries per model and sweep unless the builder says otherwise; the rest wait for the next. */
    public static final int DEFAULT_MAX_EXPIRIES_PER_MODEL = 500;

    private final ModelCatalog catalog;
    private final RequestQueue queue;
    private final DrainerLeases leases;
    private final DrainerWake wake;
    private final WorkflowCallback callback;
    private final ShaperMetrics metrics;
    private final int maxExpiriesPerModel;
    private final Sweeper sweeper;

    private SafetyNet(Builder b) {
        this.catalog = b.catalog;
        this.queue = b.queue;
        this.leases = b.leases;
        this.wake = b.wake;
        this.callback = b.callback;
        this.metrics = b.metrics;
        this.maxExpiriesPerModel = b.maxExpiriesPerModel;
        this.sweeper = b.sweeper;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * What one sweep did.
     *
     * @param woken   models a drainer was woken for, in catalog order
     * @param expired overdue requests expired, per model (only models with at least one)
     * @param leased  models skipped because a drainer holds their lease
     */
    public record Sweep(List<String> woken, Map<String, Integer> expired, List<String> leased) {

        public Sweep {
            woken = List.copyOf(woken);
            expired = Map.copyOf(expired);
            leased = List.copyOf(leased);
        }

        public int expiredTotal() {
            return expired.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    public Sweep sweep(long nowMillis) {
        List<String> woken = new ArrayList<>();
        Map<String, Integer> expired = new LinkedHashMap<>();
        List<String> leased = new ArrayList<>();
        for (ModelConfig model : catalog.all()) {
            String key = model.key();
            if (sweeper != null) {
                // Whoever holds the lease: its holder may have crashed with admissions still unsent.
                sweeper.sweep(model, nowMillis);
            }
            if (leases.current(key, nowMillis).isPresent()) {
                leased.add(key);
                continue;
            }
            // One head per tenant and lane tells whether there is work; the overdue items ahead come along.
            QueueHeads heads = queue.heads(key, 1, nowMillis);
            int count = expire(heads.overdue(), nowMillis);
            if (!heads.work().isEmpty()) {
                wake.wake(key);
                woken.add(key);
            }
            if (count > 0) {
                expired.put(key, count);
            }
        }
        return new Sweep(woken, expired, leased);
    }

    private int expire(List<QueueItem> overdue, long nowMillis) {
        int count = 0;
        for (QueueItem item : overdue) {
            if (count == maxExpiriesPerModel) {
                break;
            }
            TransitionResult result = queue.expire(item, nowMillis);
            if (result.applied()) {
                count++;
                metrics.outcome(result.record());
                callback.resume(result.record());
            }
        }
        return count;
    }

    public static final class Builder {
        private ModelCatalog catalog;
        private RequestQueue queue;
        private DrainerLeases leases;
        private DrainerWake wake;
        private WorkflowCallback callback;
        private ShaperMetrics metrics = ShaperMetrics.NONE;
        private int maxExpiriesPerModel = DEFAULT_MAX_EXPIRIES_PER_MODEL;
        private Sweeper sweeper;

        private Builder() {
        }

        public Builder catalog(ModelCatalog value) { this.catalog = value; return this; }
        public Builder queue(RequestQueue value) { this.queue = value; return this; }
        public Builder leases(DrainerLeases value) { this.leases = value; return this; }
        public Builder wake(DrainerWake value) { this.wake = value; return this; }
        /** Resumes the workflow of each request the sweep expires. */
        public Builder callback(WorkflowCallback value) { this.callback = value; return this; }
        public Builder metrics(ShaperMetrics value) { this.metrics = value; return this; }
        /** Default {@value #DEFAULT_MAX_EXPIRIES_PER_MODEL}. */
        public Builder maxExpiriesPerModel(int value) { this.maxExpiriesPerModel = value; return this; }
        /** Sweeps every model's unsettled admissions first (see {@link Sweeper}); none by default. */
        public Builder sweeper(Sweeper value) { this.sweeper = value; return this; }

        public SafetyNet build() {
            if (catalog == null || queue == null || leases == null || wake == null || callback == null
                    || metrics == null) {
                throw new IllegalStateException("catalog, queue, leases, wake, callback and metrics are required");
            }
            if (maxExpiriesPerModel < 1) {
                throw new IllegalArgumentException("maxExpiriesPerModel must be positive, was " + maxExpiriesPerModel);
            }
            return new SafetyNet(this);
        }
    }
}
