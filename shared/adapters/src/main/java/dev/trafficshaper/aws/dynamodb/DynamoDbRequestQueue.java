package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.EnqueueResult;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.Lifecycle;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.TransitionResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * The sharded queue in the single table. Queue items live under {@code MODEL#{m}#Q#{shard}}, so
 * one shard's Query returns its heads in lane/age order. Enqueue and admit each write the status
 * item and the queue item in one transaction, so no crash can leave a queued request without its
 * queue item or an admitted one still queued; admission also checks the drainer lease in that
 * transaction (fencing). Admission batches up to
 * {@value #ADMIT_BATCH} items per transaction, so the lease item is checked once per batch, not
 * once per request.
 */
public final class DynamoDbRequestQueue implements RequestQueue {

    /** Items per admit transaction: 1 lease check + 2 writes per item stays under DynamoDB's 100. */
    public static final int ADMIT_BATCH = 25;
    private static final int MAX_ATTEMPTS = 20;
    private static final String CONDITION_FAILED = "ConditionalCheckFailed";
    private static final String CONFLICT = "TransactionConflict";

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final ModelCatalog catalog;
    private final ShardPicker picker;

    private DynamoDbRequestQueue(DynamoDbClient dynamoDb, String table, ModelCatalog catalog, ShardPicker picker) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.catalog = catalog;
        this.picker = picker;
    }

    public static DynamoDbRequestQueue create(DynamoDbClient dynamoDb, String table, ModelCatalog catalog,
                                              ShardPicker picker) {
        return new DynamoDbRequestQueue(dynamoDb, table, catalog, picker);
    }

    @Override
    public EnqueueResult enqueue(NewRequest request, long nowMillis) {
        int shards = catalog.require(request.modelKey()).shards();
        RequestRecord record = request.toQueuedRecord(picker.pick(shards), nowMillis);
        Put status = Put.builder().tableName(table).item(RequestItems.status(record))
                .conditionExpression("attribute_not_exists(#pk) OR #expiresAt <= :nowSeconds")
                .expressionAttributeNames(Map.of("#pk", TableKeys.PK, "#expiresAt", TableKeys.EXPIRES_AT))
                .expressionAttributeValues(Map.of(":nowSeconds", n(TableKeys.nowSeconds(nowMillis))))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build();
        Put queued = Put.builder().tableName(table).item(RequestItems.queueItem(QueueItem.of(record))).build();
        for (int attempt = 1; ; attempt++) {
            try {
                dynamoDb.transactWriteItems(b -> b.transactItems(
                        TransactWriteItem.builder().put(status).build(),
                        TransactWriteItem.builder().put(queued).build()));
                return new EnqueueResult(true, record);
            } catch (TransactionCanceledException e) {
                CancellationReason reason = e.cancellationReasons().get(0);
                if (CONDITION_FAILED.equals(reason.code())) {
                    return new EnqueueResult(false, existing(request.requestId(), reason.item(), nowMillis));
                }
                retryOnConflict(e, attempt);
            }
        }
    }

    /** The record that won, from the failed condition; read only if an emulator omits it. */
    private RequestRecord existing(String requestId, Map<String, AttributeValue> returned, long nowMillis) {
        Map<String, AttributeValue> item = returned != null && !returned.isEmpty() ? returned
                : dynamoDb.getItem(b -> b.tableName(table).key(RequestItems.statusKey(requestId))
                        .consistentRead(true)).item();
        if (!Attrs.isLive(item, nowMillis)) {
            throw new IllegalStateException("request " + requestId + " was refused as a duplicate but is not live");
        }
        return RequestItems.status(item);
    }

    @Override
    public QueueHeads heads(String modelKey, Lane lane, int limit, long nowMillis) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive");
        }
        int shards = catalog.require(modelKey).shards();
        List<QueueItem> work = new ArrayList<>();
        List<QueueItem> overdue = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            scanShard(modelKey, shard, lane, limit, nowMillis, work, overdue);
        }
        return QueueHeads.merge(work, overdue, limit);
    }

    private void scanShard(String modelKey, int shard, Lane lane, int limit, long nowMillis, List<QueueItem> work,
                           List<QueueItem> overdue) {
        int found = 0;
        Map<String, AttributeValue> start = null;
        do {
            QueryRequest.Builder query = liveItemsOf(modelKey, shard, lane, nowMillis).limit(limit);
            if (start != null) {
                query.exclusiveStartKey(start);
            }
            QueryResponse page = dynamoDb.query(query.build());
            for (Map<String, AttributeValue> raw : page.items()) {
                QueueItem item = RequestItems.queueItem(raw);
                if (item.isOverdue(nowMillis)) {
                    overdue.add(item);
                } else if (found < limit) {
                    work.add(item);
                    found++;
                }
            }
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null && found < limit);
    }

    private QueryRequest.Builder liveItemsOf(String modelKey, int shard, Lane lane, long nowMillis) {
        return QueryRequest.builder().tableName(table).consistentRead(true)
                .keyConditionExpression("#pk = :pk AND begins_with(#sk, :lane)")
                .filterExpression("#expiresAt > :nowSeconds")
                .expressionAttributeNames(Map.of("#pk", TableKeys.PK, "#sk", TableKeys.SK,
                        "#expiresAt", TableKeys.EXPIRES_AT))
                .expressionAttributeValues(Map.of(":pk", s(TableKeys.queuePk(modelKey, shard)),
                        ":lane", s(TableKeys.lanePrefix(lane)), ":nowSeconds", n(TableKeys.nowSeconds(nowMillis))));
    }

    @Override
    public AdmitResult admit(Lease lease, List<QueueItem> items, long nowMillis) {
        for (QueueItem item : items) {
            if (!lease.modelKey().equals(item.modelKey())) {
                throw new IllegalArgumentException("item " + item.requestId() + " is queued for model "
                        + item.modelKey() + ", not for the leased model " + lease.modelKey());
            }
        }
        List<QueueItem> admitted = new ArrayList<>();
        List<TransitionResult> refused = new ArrayList<>();
        for (int from = 0; from < items.size(); from += ADMIT_BATCH) {
            admitBatch(lease, items.subList(from, Math.min(items.size(), from + ADMIT_BATCH)), nowMillis, admitted,
                    refused);
        }
        return new AdmitResult(admitted, refused);
    }

    private void admitBatch(Lease lease, List<QueueItem> batch, long nowMillis, List<QueueItem> admitted,
                            List<TransitionResult> refused) {
        StatusUpdate update = StatusUpdate.of(new RequestEvent.Admit(lease.fencingToken()), nowMillis);
        List<QueueItem> pending = new ArrayList<>(batch);
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            List<TransactWriteItem> actions = new ArrayList<>();
            actions.add(TransactWriteItem.builder().conditionCheck(leaseCheck(lease, nowMillis)).build());
            for (QueueItem item : pending) {
                actions.add(TransactWriteItem.builder().update(update.transactUpdate(table, item.requestId())).build());
                actions.add(TransactWriteItem.builder().delete(deleteOf(item)).build());
            }
            try {
                dynamoDb.transactWriteItems(b -> b.transactItems(actions));
                admitted.addAll(pending);
                return;
            } catch (TransactionCanceledException e) {
                List<CancellationReason> reasons = e.cancellationReasons();
                if (CONDITION_FAILED.equals(reasons.get(0).code())) {
                    throw new LeaseLostException(lease);
                }
                List<QueueItem> retry = new ArrayList<>();
                boolean refusedAny = false;
                for (int i = 0; i < pending.size(); i++) {
                    QueueItem item = pending.get(i);
                    CancellationReason reason = reasons.get(1 + 2 * i);
                    if (CONDITION_FAILED.equals(reason.code())) {
                        refusedAny = true;
                        TransitionResult result = DynamoDbRequestStore.refusal(item.requestId(), reason.item(),
                                nowMillis);
                        refused.add(result);
                        if (result.record() == null || result.state() != RequestState.QUEUED) {
                            removeLeftover(item);
                        }
                    } else {
                        retry.add(item);
                    }
                }
                if (!refusedAny) {
                    retryOnConflict(e, attempt);
                }
                pending = retry;
            }
        }
    }

    private ConditionCheck leaseCheck(Lease lease, long nowMillis) {
        return ConditionCheck.builder().tableName(table)
                .key(Attrs.key(TableKeys.modelPk(lease.modelKey()), TableKeys.LEASE_SK))
                .conditionExpression("#owner = :owner AND #fence = :fence AND #leaseUntil > :nowMillis")
                .expressionAttributeNames(Map.of("#owner", LeaseItems.OWNER, "#fence", LeaseItems.FENCE,
                        "#leaseUntil", LeaseItems.LEASE_UNTIL))
                .expressionAttributeValues(Map.of(":owner", s(lease.owner()), ":fence", n(lease.fencingToken()),
                        ":nowMillis", n(nowMillis)))
                .build();
    }

    private Delete deleteOf(QueueItem item) {
        return Delete.builder().tableName(table).key(RequestItems.queueKey(item)).build();
    }

    private void removeLeftover(QueueItem item) {
        dynamoDb.deleteItem(b -> b.tableName(table).key(RequestItems.queueKey(item)));
    }

    @Override
    public TransitionResult requeue(RequestRecord invoking, RequestEvent.Requeue event, long nowMillis) {
        RequestRecord queued = Lifecycle.change(event, nowMillis).applyTo(invoking);
        Put item = Put.builder().tableName(table).item(RequestItems.queueItem(QueueItem.of(queued))).build();
        for (int attempt = 1; ; attempt++) {
            try {
                dynamoDb.transactWriteItems(b -> b.transactItems(
                        TransactWriteItem.builder().update(StatusUpdate.of(event, nowMillis)
                                .transactUpdate(table, invoking.requestId())).build(),
                        TransactWriteItem.builder().put(item).build()));
                return TransitionResult.applied(queued);
            } catch (TransactionCanceledException e) {
                CancellationReason reason = e.cancellationReasons().get(0);
                if (CONDITION_FAILED.equals(reason.code())) {
                    return DynamoDbRequestStore.refusal(invoking.requestId(), reason.item(), nowMillis);
                }
                retryOnConflict(e, attempt);
            }
        }
    }

    /**
     * Two writes, not a transaction: the status update is the decision, and a queue item left
     * behind by a crash in between is a leftover that the next admit or expire removes.
     */
    @Override
    public TransitionResult expire(QueueItem item, long nowMillis) {
        TransitionResult result;
        try {
            Map<String, AttributeValue> updated = dynamoDb.updateItem(StatusUpdate.of(new RequestEvent.Expire(),
                    nowMillis).updateItem(table, item.requestId()).returnValues(ReturnValue.ALL_NEW).build())
                    .attributes();
            result = TransitionResult.applied(RequestItems.status(updated));
        } catch (ConditionalCheckFailedException e) {
            result = DynamoDbRequestStore.refusal(item.requestId(), e.item(), nowMillis);
        }
        removeLeftover(item);
        return result;
    }

    @Override
    public long depth(String modelKey, long nowMillis) {
        int shards = catalog.require(modelKey).shards();
        long count = 0;
        for (int shard = 0; shard < shards; shard++) {
            Map<String, AttributeValue> start = null;
            do {
                QueryRequest.Builder query = QueryRequest.builder().tableName(table).select(Select.COUNT)
                        .keyConditionExpression("#pk = :pk")
                        .filterExpression("#expiresAt > :nowSeconds AND #deadlineAt > :nowMillis")
                        .expressionAttributeNames(Map.of("#pk", TableKeys.PK, "#expiresAt", TableKeys.EXPIRES_AT,
                                "#deadlineAt", RequestItems.DEADLINE_AT))
                        .expressionAttributeValues(Map.of(":pk", s(TableKeys.queuePk(modelKey, shard)),
                                ":nowSeconds", n(TableKeys.nowSeconds(nowMillis)), ":nowMillis", n(nowMillis)));
                if (start != null) {
                    query.exclusiveStartKey(start);
                }
                QueryResponse page = dynamoDb.query(query.build());
                count += page.count();
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
                        ? page.lastEvaluatedKey() : null;
            } while (start != null);
        }
        return count;
    }

    private static void retryOnConflict(TransactionCanceledException e, int attempt) {
        boolean conflict = e.cancellationReasons().stream().anyMatch(r -> CONFLICT.equals(r.code()));
        if (!conflict || attempt >= MAX_ATTEMPTS) {
            throw e;
        }
        Backoff.pause(attempt);
    }
}
