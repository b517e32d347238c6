package dev.trafficshaper.queue;

import dev.trafficshaper.pacing.Lane;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The front of a model's queue, tenant by tenant (see {@link RequestQueue#heads}). {@code work}
 * holds items that may still be admitted, {@code overdue} the items past their deadline that were
 * passed over on the way, for the caller to expire; both in {@link QueueItem#HEAD_ORDER}
 * (interactive before bulk, then oldest first, tenants interleaved by age). Overdue items are never
 * part of {@code work}.
 */
public record QueueHeads(List<QueueItem> work, List<QueueItem> overdue) {

    public static final QueueHeads NONE = new QueueHeads(List.of(), List.of());

    public QueueHeads {
        work = List.copyOf(work);
        overdue = List.copyOf(overdue);
    }

    /**
     * The heads among {@code scanned}, any mix of items of any shards, lanes and tenants, in any
     * order: sorted into head order and cut tenant by tenant as {@link HeadsSelection} does. Items
     * past their retention are dropped.
     */
    public static QueueHeads select(Collection<QueueItem> scanned, int limitPerTenant, long nowMillis) {
        List<QueueItem> sorted = new ArrayList<>(scanned);
        sorted.sort(QueueItem.HEAD_ORDER);
        HeadsSelection selection = HeadsSelection.create(limitPerTenant, nowMillis);
        sorted.forEach(selection::offer);
        return selection.heads();
    }

    /** The admissible items of one lane, per tenant, each tenant's oldest first. */
    public Map<String, List<QueueItem>> workByTenant(Lane lane) {
        Map<String, List<QueueItem>> byTenant = new LinkedHashMap<>();
        for (QueueItem item : work) {
            if (item.lane() == lane) {
                byTenant.computeIfAbsent(item.tenant(), tenant -> new ArrayList<>()).add(item);
            }
        }
        return byTenant;
    }

    public boolean isEmpty() {
        return work.isEmpty() && overdue.isEmpty();
    }
}
