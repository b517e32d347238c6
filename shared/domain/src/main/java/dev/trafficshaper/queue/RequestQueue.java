package dev.trafficshaper.queue;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.TransitionResult;
import java.util.List;

/**
 * The sharded per-model queue, together with the status records it creates and admits. Each
 * model's queue is split over {@code ModelConfig.shards()} keys so no single key takes more than
 * its share of the enqueue and admit writes. Reads serve it tenant by tenant ({@link #heads}), so
 * one tenant's backlog never hides another tenant's work.
 */
public interface RequestQueue {

    /**
     * Stores the request as QUEUED, its queue item and its task token (when it has one), all or
     * none. Idempotent on {@code requestId}: a repeat, also a concurrent one, stores nothing (its
     * token neither) and returns the first.
     *
     * @throws IllegalArgumentException for a model the catalog does not know
     */
    EnqueueResult enqueue(NewRequest request, long nowMillis);

    /**
     * The heads of every tenant in every lane: for each lane and each tenant with admissible work in
     * it, that tenant's {@code limitPerTenant} oldest admissible items across all shards (fewer if it
     * has fewer), oldest first, however many items other tenants have queued. {@code overdue} holds,
     * per lane and tenant, the items past their deadline that sort before the last of its returned
     * work (all of them when it has fewer than {@code limitPerTenant}), for the caller to expire;
     * an overdue item is never work. Items past their retention are absent.
     *
     * <p>So a caller sees at most {@code 2 × tenants × limitPerTenant} work items (both lanes), and
     * always the oldest item of each tenant and lane, which is what a fair choice among tenants
     * needs. Choose {@code limitPerTenant} to cover what the caller admits per tenant between two
     * reads; {@code 1} answers "is there any work" and "whose". A read is consistent: an item
     * enqueued, admitted, requeued or expired before it began is seen as such.
     *
     * <p>Cost: the DynamoDB adapter reads all shards concurrently, about one call's latency per
     * read; its calls per read are given by {@code DynamoDbRequestQueue.headsQueries}.
     *
     * @throws IllegalArgumentException for a model the catalog does not know or a limit below 1
     */
    QueueHeads heads(String modelKey, int limitPerTenant, long nowMillis);

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

    /**
     * The model's requests admitted before {@code admittedBeforeMillis} that are still ADMITTED or
     * INVOKING, oldest admission first, at most {@code limit}: what the sweeper checks for a lost
     * dispatch or a processor that stopped. The DynamoDB adapter reads a sparse index that holds
     * exactly these requests, so the cost follows what is unsettled, not what was ever admitted;
     * the index is eventually consistent, so a caller acts only through conditional transitions.
     */
    List<RequestRecord> unsettled(String modelKey, long admittedBeforeMillis, int limit, long nowMillis);

    /** How many admissible items the model's queue holds. */
    long depth(String modelKey, long nowMillis);
}
