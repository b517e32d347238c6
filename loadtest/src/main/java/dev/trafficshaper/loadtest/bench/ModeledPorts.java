package dev.trafficshaper.loadtest.bench;

import dev.trafficshaper.aws.dynamodb.DynamoDbCallPattern;
import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseAttempt;
import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.lifecycle.ModelStatusBoard;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.EnqueueResult;
import dev.trafficshaper.queue.InMemoryRequestQueue;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The drainer's view of the in-memory adapters with DynamoDB's call pattern and latency: the same
 * state the Bedrock Processor writes (without delay), behind the calls the drainer would pay for.
 */
final class ModeledPorts {

    private ModeledPorts() {
    }

    static RequestQueue queue(InMemoryRequestQueue inMemory, int shards, ModeledCalls calls) {
        return new RequestQueue() {
            @Override
            public EnqueueResult enqueue(NewRequest request, long nowMillis) {
                return inMemory.enqueue(request, nowMillis);
            }

            @Override
            public QueueHeads heads(String modelKey, int limitPerTenant, long nowMillis) {
                // the table's pages depend on how the queue lies over shards and tenants
                calls.pay(DynamoDbCallPattern.heads(shards, inMemory.layout(modelKey, nowMillis), limitPerTenant));
                return inMemory.heads(modelKey, limitPerTenant, nowMillis);
            }

            @Override
            public AdmitResult admit(Lease lease, List<QueueItem> items, long nowMillis) {
                calls.pay(DynamoDbCallPattern.admit(items.size()));
                return inMemory.admit(lease, items, nowMillis);
            }

            @Override
            public TransitionResult requeue(RequestRecord invoking, RequestEvent.Requeue event, long nowMillis) {
                return inMemory.requeue(invoking, event, nowMillis);
            }

            @Override
            public TransitionResult expire(QueueItem item, long nowMillis) {
                calls.pay(DynamoDbCallPattern.expire());
                return inMemory.expire(item, nowMillis);
            }

            @Override
            public List<RequestRecord> unsettled(String modelKey, long admittedBeforeMillis, int limit,
                                                 long nowMillis) {
                calls.pay(DynamoDbCallPattern.depth(shards)); // one Query per shard, as a count
                return inMemory.unsettled(modelKey, admittedBeforeMillis, limit, nowMillis);
            }

            @Override
            public long depth(String modelKey, long nowMillis) {
                calls.pay(DynamoDbCallPattern.depth(shards));
                return inMemory.depth(modelKey, nowMillis);
            }
        };
    }

    static RequestStore requests(RequestStore inMemory, ModeledCalls calls) {
        return new RequestStore() {
            @Override
            public Optional<RequestRecord> find(String requestId, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.find(requestId, nowMillis);
            }

            @Override
            public Map<String, RequestRecord> findAll(Collection<String> requestIds, long nowMillis) {
                calls.pay(DynamoDbCallPattern.findAll(requestIds.size()));
                return inMemory.findAll(requestIds, nowMillis);
            }

            @Override
            public Optional<String> taskToken(String requestId, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.taskToken(requestId, nowMillis);
            }

            @Override
            public TransitionResult replaceTaskToken(String requestId, String taskToken, long nowMillis) {
                return inMemory.replaceTaskToken(requestId, taskToken, nowMillis);
            }

            @Override
            public TransitionResult transition(String requestId, RequestEvent event, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.transition(requestId, event, nowMillis);
            }

            @Override
            public TransitionResult recordDelivery(String requestId, DeliveryState delivery, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.recordDelivery(requestId, delivery, nowMillis);
            }

            @Override
            public TransitionResult recordHandoff(String requestId, boolean webhookQueued, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.recordHandoff(requestId, webhookQueued, nowMillis);
            }
        };
    }

    static DrainerLeases leases(DrainerLeases inMemory, ModeledCalls calls) {
        return new DrainerLeases() {
            @Override
            public LeaseAttempt acquire(String modelKey, String owner, long durationMillis, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.acquire(modelKey, owner, durationMillis, nowMillis);
            }

            @Override
            public Optional<Lease> renew(Lease lease, long durationMillis, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.renew(lease, durationMillis, nowMillis);
            }

            @Override
            public boolean release(Lease lease, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.release(lease, nowMillis);
            }

            @Override
            public Optional<Lease> current(String modelKey, long nowMillis) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.current(modelKey, nowMillis);
            }
        };
    }

    static ModelStatusBoard board(ModelStatusBoard inMemory, ModeledCalls calls) {
        return new ModelStatusBoard() {
            @Override
            public boolean publish(ModelStatus status, long fencingToken) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.publish(status, fencingToken);
            }

            @Override
            public Optional<ModelStatus> read(String modelKey) {
                calls.pay(DynamoDbCallPattern.single());
                return inMemory.read(modelKey);
            }
        };
    }
}
