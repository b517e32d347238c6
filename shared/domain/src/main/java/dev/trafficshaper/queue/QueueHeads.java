package dev.trafficshaper.queue;

import java.util.ArrayList;
import java.util.List;

/**
 * The front of a queue. {@code work} holds items that may still be admitted, in head order;
 * {@code overdue} holds the items past their deadline that were passed over on the way, for the
 * caller to expire. Overdue items are never part of {@code work}.
 */
public record QueueHeads(List<QueueItem> work, List<QueueItem> overdue) {

    public QueueHeads {
        work = List.copyOf(work);
        overdue = List.copyOf(overdue);
    }

    /**
     * Cuts per-shard scans down to the first {@code limit} work items overall, with the overdue
     * items that sort before the last of them (all of them when fewer than {@code limit} remain).
     */
    public static QueueHeads merge(List<QueueItem> scannedWork, List<QueueItem> scannedOverdue, int limit) {
        List<QueueItem> work = new ArrayList<>(scannedWork);
        work.sort(QueueItem.HEAD_ORDER);
        List<QueueItem> overdue = new ArrayList<>(scannedOverdue);
        overdue.sort(QueueItem.HEAD_ORDER);
        if (work.size() >= limit) {
            work = work.subList(0, limit);
            QueueItem cutoff = work.get(work.size() - 1);
            overdue.removeIf(item -> QueueItem.HEAD_ORDER.compare(item, cutoff) > 0);
        }
        return new QueueHeads(work, overdue);
    }

    /** Interactive heads, then bulk heads. */
    public QueueHeads then(QueueHeads later) {
        List<QueueItem> allWork = new ArrayList<>(work);
        allWork.addAll(later.work);
        List<QueueItem> allOverdue = new ArrayList<>(overdue);
        allOverdue.addAll(later.overdue);
        return new QueueHeads(allWork, allOverdue);
    }
}
