package dev.trafficshaper.queue;

import dev.trafficshaper.pacing.Lane;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts queue items down to each tenant's heads, the rule both queue adapters apply so they return
 * the same heads for the same queue.
 *
 * <p>Why per tenant: the pacer shares a lane between tenants and can only be fair among the
 * tenants it sees. A window of the oldest items of a lane shows only the tenant that queued first
 * as soon as it has queued more than the window holds; cutting per tenant shows every tenant with
 * work, however much another one has queued.
 *
 * <p>The rule, for each flow (one lane of one tenant), over its items in head order: an item past
 * its retention is ignored; an overdue item (deadline reached) is kept as overdue; an admissible
 * item is kept as work until the flow has {@code limitPerTenant} of them; after that the flow is
 * <b>full</b> and takes nothing more. So a flow yields its oldest admissible items and the overdue
 * items ahead of the last of them (all of its overdue items when it has fewer admissible ones).
 *
 * <p>The rule composes: applied to each shard's items apart, and again to the union of what the
 * shards kept, it gives what it gives applied to all items at once, because the part of a flow
 * that the whole-queue rule keeps is, within each shard, a prefix that the shard's rule keeps too.
 * That is what lets a scan of one shard stop reading a flow once the flow is full there.
 */
public final class HeadsSelection {

    private record Flow(Lane lane, String tenant) {
    }

    private static final class Kept {
        final List<QueueItem> work = new ArrayList<>();
        final List<QueueItem> overdue = new ArrayList<>();
    }

    private final int limitPerTenant;
    private final long nowMillis;
    private final Map<Flow, Kept> flows = new HashMap<>();

    private HeadsSelection(int limitPerTenant, long nowMillis) {
        this.limitPerTenant = limitPerTenant;
        this.nowMillis = nowMillis;
    }

    /** @throws IllegalArgumentException when {@code limitPerTenant} is not positive */
    public static HeadsSelection create(int limitPerTenant, long nowMillis) {
        if (limitPerTenant < 1) {
            throw new IllegalArgumentException("limitPerTenant must be positive");
        }
        return new HeadsSelection(limitPerTenant, nowMillis);
    }

    /**
     * Offers the next item of its flow; a flow's items must come in head order, flows in any
     * order. Returns whether the flow takes more items: {@code false} once it is full, so a scan
     * may skip the rest of that flow.
     */
    public boolean offer(QueueItem item) {
        Kept kept = flows.computeIfAbsent(new Flow(item.lane(), item.tenant()), flow -> new Kept());
        if (kept.work.size() >= limitPerTenant) {
            return false;
        }
        if (item.expiresAtMillis() <= nowMillis) {
            return true;
        }
        if (item.isOverdue(nowMillis)) {
            kept.overdue.add(item);
            return true;
        }
        kept.work.add(item);
        return kept.work.size() < limitPerTenant;
    }

    /** What was kept, in head order. */
    public QueueHeads heads() {
        List<QueueItem> work = new ArrayList<>();
        List<QueueItem> overdue = new ArrayList<>();
        for (Kept kept : flows.values()) {
            work.addAll(kept.work);
            overdue.addAll(kept.overdue);
        }
        work.sort(QueueItem.HEAD_ORDER);
        overdue.sort(QueueItem.HEAD_ORDER);
        return new QueueHeads(work, overdue);
    }
}
