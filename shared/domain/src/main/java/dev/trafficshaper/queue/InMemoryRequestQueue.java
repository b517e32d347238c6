package dev.trafficshaper.queue;

import dev.trafficshaper.lease.InMemoryDrainerLeases;
import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.request.InMemoryRequestStore;
import dev.trafficshaper.request.Lifecycle;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.TransitionResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The queue in sorted sets, one per lane and tenant of a model, sharing records with an
 * {@link InMemoryRequestStore} and leases with an {@link InMemoryDrainerLeases}. Items keep the
 * shard the picker gave them, as in the table, but nothing here depends on it: the heads of a
 * tenant are the first items of its set. Multi-record steps lock the leases, then the records,
 * always in that order, which makes each step atomic the way a DynamoDB transaction is.
 */
public final class InMemoryRequestQueue implements RequestQueue {

    private final InMemoryRequestStore requests;
    private final InMemoryDrainerLeases leases;
    private final ModelCatalog catalog;
    private final ShardPicker picker;
    /** model key -> (lane, tenant) -> items in head order; guarded by {@code requests}' monitor. */
    private final Map<String, Map<Flow, TreeSet<QueueItem>>> queues = new HashMap<>();

    private record Flow(Lane lane, String tenant) {
        static Flow of(QueueItem item) {
            return new Flow(item.lane(), item.tenant());
        }
    }

    private InMemoryRequestQueue(InMemoryRequestStore requests, InMemoryDrainerLeases leases, ModelCatalog catalog,
                                 ShardPicker picker) {
        this.requests = requests;
        this.leases = leases;
        this.catalog = catalog;
        this.picker = picker;
    }

    public static InMemoryRequestQueue create(InMemoryRequestStore requests, InMemoryDrainerLeases leases,
                                              ModelCatalog catalog, ShardPicker picker) {
        return new InMemoryRequestQueue(requests, leases, catalog, picker);
    }

    @Override
    public EnqueueResult enqueue(NewRequest request, long nowMillis) {
        int shards = catalog.require(request.modelKey()).shards();
        synchronized (requests) {
            Optional<RequestRecord> first = requests.find(request.requestId(), nowMillis);
            if (first.isPresent()) {
                return new EnqueueResult(false, first.get());
            }
            RequestRecord record = request.toQueuedRecord(picker.pick(shards), nowMillis);
            requests.insertIfAbsent(record, request.taskToken(), nowMillis);
            add(QueueItem.of(record));
            return new EnqueueResult(true, record);
        }
    }

    @Override
    public QueueHeads heads(String modelKey, int limitPerTenant, long nowMillis) {
        catalog.require(modelKey);
        HeadsSelection selection = HeadsSelection.create(limitPerTenant, nowMillis);
        synchronized (requests) {
            for (TreeSet<QueueItem> flow : queues.getOrDefault(modelKey, Map.of()).values()) {
                for (QueueItem item : flow) {
                    if (!selection.offer(item)) {
                        break;
                    }
                }
            }
        }
        return selection.heads();
    }

    @Override
    public AdmitResult admit(Lease lease, List<QueueItem> items, long nowMillis) {
        items.forEach(item -> requireModel(lease, item));
        synchronized (leases) {
            if (!leases.holds(lease, nowMillis)) {
                throw new LeaseLostException(lease);
            }
            synchronized (requests) {
                RequestEvent admit = new RequestEvent.Admit(lease.fencingToken());
                List<QueueItem> admitted = new ArrayList<>();
                List<TransitionResult> refused = new ArrayList<>();
                for (QueueItem item : items) {
                    TransitionResult result = requests.apply(item.requestId(),
                            current -> Lifecycle.next(current, admit, nowMillis), nowMillis);
                    if (result.applied()) {
                        admitted.add(item);
                        remove(item);
                    } else {
                        refused.add(result);
                        if (result.record() == null || result.state() != RequestState.QUEUED) {
                            remove(item);
                        }
                    }
                }
                return new AdmitResult(admitted, refused);
            }
        }
    }

    @Override
    public TransitionResult requeue(RequestRecord invoking, RequestEvent.Requeue event, long nowMillis) {
        synchronized (requests) {
            TransitionResult result = requests.apply(invoking.requestId(),
                    current -> Lifecycle.next(current, event, nowMillis), nowMillis);
            if (result.applied()) {
                add(QueueItem.of(result.record()));
            }
            return result;
        }
    }

    @Override
    public TransitionResult expire(QueueItem item, long nowMillis) {
        synchronized (requests) {
            TransitionResult result = requests.apply(item.requestId(),
                    current -> Lifecycle.next(current, new RequestEvent.Expire(), nowMillis), nowMillis);
            remove(item);
            return result;
        }
    }

    @Override
    public List<RequestRecord> unsettled(String modelKey, long admittedBeforeMillis, int limit, long nowMillis) {
        catalog.require(modelKey);
        return requests.unsettled(modelKey, admittedBeforeMillis, limit, nowMillis);
    }

    @Override
    public long depth(String modelKey, long nowMillis) {
        synchronized (requests) {
            return queues.getOrDefault(modelKey, Map.of()).values().stream()
                    .flatMap(TreeSet::stream)
                    .filter(item -> item.expiresAtMillis() > nowMillis && !item.isOverdue(nowMillis))
                    .count();
        }
    }

    /**
     * The admissible items of the model per shard, lane and tenant, for modelling what a table
     * adapter's reads of this queue would cost; linear in the queue's size.
     */
    public List<ShardFlow> layout(String modelKey, long nowMillis) {
        List<ShardFlow> layout = new ArrayList<>();
        synchronized (requests) {
            for (Map.Entry<Flow, TreeSet<QueueItem>> flow : queues.getOrDefault(modelKey, Map.of()).entrySet()) {
                Map<Integer, Long> perShard = new HashMap<>();
                for (QueueItem item : flow.getValue()) {
                    if (item.expiresAtMillis() > nowMillis && !item.isOverdue(nowMillis)) {
                        perShard.merge(item.shard(), 1L, Long::sum);
                    }
                }
                perShard.forEach((shard, count) -> layout.add(new ShardFlow(shard, flow.getKey().lane(),
                        flow.getKey().tenant(), count)));
            }
        }
        return layout;
    }

    private void add(QueueItem item) {
        queues.computeIfAbsent(item.modelKey(), key -> new HashMap<>())
                .computeIfAbsent(Flow.of(item), key -> new TreeSet<>(QueueItem.HEAD_ORDER)).add(item);
    }

    private void remove(QueueItem item) {
        Map<Flow, TreeSet<QueueItem>> flows = queues.get(item.modelKey());
        if (flows == null) {
            return;
        }
        TreeSet<QueueItem> flow = flows.get(Flow.of(item));
        if (flow != null && flow.remove(item) && flow.isEmpty()) {
            flows.remove(Flow.of(item));
        }
    }

    static void requireModel(Lease lease, QueueItem item) {
        if (!lease.modelKey().equals(item.modelKey())) {
            throw new IllegalArgumentException("item " + item.requestId() + " is queued for model " + item.modelKey()
                    + ", not for the leased model " + lease.modelKey());
        }
    }

}
