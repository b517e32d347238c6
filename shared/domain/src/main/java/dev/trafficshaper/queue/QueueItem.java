package dev.trafficshaper.queue;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.request.RequestRecord;
import java.util.Comparator;
import java.util.Objects;

/**
 * A request waiting on one shard of its model's queue, with what the drainer needs to pace it
 * (tenant, lane, estimate, deadline) so choosing work needs no status reads.
 */
public record QueueItem(
        String modelKey,
        int shard,
        Lane lane,
        long enqueuedAtMillis,
        String requestId,
        String tenant,
        long deadlineMillis,
        TokenUsage estimate,
        long expiresAtMillis) {

    /** Head order: interactive before bulk, then oldest first, then by id. */
    public static final Comparator<QueueItem> HEAD_ORDER = Comparator.comparing(QueueItem::lane)
            .thenComparingLong(QueueItem::enqueuedAtMillis)
            .thenComparing(QueueItem::requestId);

    public QueueItem {
        Objects.requireNonNull(modelKey, "modelKey");
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(estimate, "estimate");
    }

    /** The queue item a queued request has. */
    public static QueueItem of(RequestRecord record) {
        return new QueueItem(record.modelKey(), record.shard(), record.lane(), record.enqueuedAtMillis(),
                record.requestId(), record.tenant(), record.deadlineMillis(), record.estimate(),
                record.expiresAtMillis());
    }

    public boolean isOverdue(long nowMillis) {
        return deadlineMillis <= nowMillis;
    }
}
