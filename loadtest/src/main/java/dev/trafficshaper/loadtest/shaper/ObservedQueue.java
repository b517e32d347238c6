package dev.trafficshaper.loadtest.shaper;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.EnqueueResult;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.TransitionResult;
import java.util.List;
import java.util.function.Consumer;

/**
 * The production queue, unchanged, telling the simulation when a request leaves it (admitted)
 * and comes back (requeued), which is when the run's backlog opens and closes.
 */
final class ObservedQueue implements RequestQueue {

    private final RequestQueue queue;
    private final Consumer<String> left;
    private final Consumer<String> returned;

    ObservedQueue(RequestQueue queue, Consumer<String> left, Consumer<String> returned) {
        this.queue = queue;
        this.left = left;
        this.returned = returned;
    }

    @Override
    public EnqueueResult enqueue(NewRequest request, long nowMillis) {
        return queue.enqueue(request, nowMillis);
    }

    @Override
    public QueueHeads heads(String modelKey, int limitPerTenant, long nowMillis) {
        return queue.heads(modelKey, limitPerTenant, nowMillis);
    }

    @Override
    public AdmitResult admit(Lease lease, List<QueueItem> items, long nowMillis) {
        AdmitResult result = queue.admit(lease, items, nowMillis);
        result.admitted().forEach(item -> left.accept(item.requestId()));
        return result;
    }

    @Override
    public TransitionResult requeue(RequestRecord current, RequestEvent.Requeue event, long nowMillis) {
        TransitionResult result = queue.requeue(current, event, nowMillis);
        if (result.applied()) {
            returned.accept(current.requestId());
        }
        return result;
    }

    @Override
    public TransitionResult expire(QueueItem item, long nowMillis) {
        return queue.expire(item, nowMillis);
    }

    @Override
    public List<RequestRecord> unsettled(String modelKey, long admittedBeforeMillis, int limit, long nowMillis) {
        return queue.unsettled(modelKey, admittedBeforeMillis, limit, nowMillis);
    }

    @Override
    public long depth(String modelKey, long nowMillis) {
        return queue.depth(modelKey, nowMillis);
    }
}
