package dev.trafficshaper.queue;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.TransitionResult;
import java.util.List;

/**
 * The sharded per-model queue, together with the status records it creates and admits. Each
 * model's queue is split over {@code ModelConfig.shards()} keys so no single key takes more than
 * its share of the enqueue and admit writes.
 */
public interface RequestQueue {

    /**
     * Stores the request as QUEUED and its queue item, both or neither. Idempotent on
     * {@code requestId}: a repeat, also a concurrent one, stores nothing and returns the first.
     *
     * @throws IllegalArgumentException for a model the catalog does not know
     */
    EnqueueResult enqueue(NewRequest request, long nowMillis);

    /** Up to {@code limit} admissible items of one lane, oldest first, across all shards. */
    QueueHeads heads(String modelKey, Lane lane, int limit, long nowMillis);

    /** Up to {@code limitPerLane} items of each lane: interactive ones first, then bulk. */
    default QueueHeads heads(String modelKey, int limitPerLane, long nowMillis) {
        return heads(modelKey, Lane.INTERACTIVE, limitPerLane, nowMillis)
                .then(heads(modelKey, Lane.BULK, limitPerLane, nowMillis));
    }

    /**
     * Marks {@code items} ADMITTED and removes them from the queue, fenced by {@code lease}: if
     * the lease is not the model's current one at {@code nowMillis}, nothing is written.
     *
     * @throws LeaseLostException when {@code lease} is stale
     */
    AdmitResult admit(Lease lease, List<QueueItem> items, long nowMillis);

    /**
     * Puts a request back: INVOKING (or, for a stale admission, ADMITTED) → QUEUED with
     * {@code event}'s requeue count and reason, and its queue item restored at its original place
     * (same shard, lane and enqueue time), both or neither. Refused once the deadline has passed or
     * the request has left the state the event names.
     */
    TransitionResult requeue(RequestRecord current, RequestEvent.Requeue event, long nowMillis);

    /** Marks a queued (or admitted) request EXPIRED and removes its queue item in any case. */
    TransitionResult expire(QueueItem item, long nowMillis);

    /** How many admissible items the model's queue holds. */
    long depth(String modelKey, long nowMillis);
}
