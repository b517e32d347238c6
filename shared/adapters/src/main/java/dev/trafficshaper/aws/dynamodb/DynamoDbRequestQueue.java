package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.model.ModelCatalog;
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
import dev.trafficshaper.threads.DaemonThreads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
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
 * The sharded queue in the single table. Queue items live under {@code MODEL#{m}#Q#{shard}}, keyed
 * by lane, tenant digest and age, so one shard's Query returns them flow by flow (one lane of one
 * tenant), each oldest first; {@link #heads} reads every tenant's front this way from all shards at
 * once ({@link QueueHeadsReader}). Enqueue and admit each write the status item and the queue item
 * in one transaction (enqueue also the task token's item), so no crash can leave a queued request
 * without its queue item or its token, or an admitted one still queued; admission also checks the
 * drainer lease in that transaction (fencing).
 * Admission batches up to {@value #ADMIT_BATCH} items per transaction, so the lease item is checked
 * once per batch, not once per request.
 *
 * <p>Reads that span shards (heads, depth) run one task per shard on a bounded pool, by default
 * {@value #DEFAULT_READ_THREADS} daemon threads; the HTTP client should keep that many connections
 * alive (the URL connection client keeps {@code http.maxConnections}, default 5, per host; the
 * functions and the local server raise it with {@link dev.trafficshaper.aws.HttpKeepAlive}).
 */
public final class DynamoDbRequestQueue implements RequestQueue {

    /** Items per admit transaction: 1 lease check + 2 writes per item stays under DynamoDB's 100. */
    public static final int ADMIT_BATCH = 25;
    /**
     * Items a heads read's Query page holds beyond the per-tenant limit: room for light tenants
     * ahead of a heavy one, without reading much more of the heavy one than its limit.
     */
    public static final int HEADS_PAGE_MARGIN = 25;
    /** Shards read at once by one heads or depth read, unless a pool is given. */
    public static final int DEFAULT_READ_THREADS = 16;
    private static final int MAX_ATTEMPTS = 20;
    private static final String CONDITION_FAILED = "ConditionalCheckFailed";
    private static final String CONFLICT = "TransactionConflict";

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final ModelCatalog catalog;
    private final ShardPicker picker;
    private final ExecutorService readPool;
    private final QueueHeadsReader headsReader;

    private DynamoDbRequestQueue(Builder b) {
        this.dynamoDb = b.dynamoDb;
        this.table = b.table;
        this.catalog = b.catalog;
        this.picker = b.picker;
        this.readPool = b.readPool != null ? b.readPool
                : DaemonThreads.boundedPool("dynamodb-queue-read", DEFAULT_READ_THREADS);
        this.headsReader = new QueueHeadsReader(dynamoDb, table, readPool, b.headsPageMargin);
    }

    public static DynamoDbRequestQueue create(DynamoDbClient dynamoDb, String table, ModelCatalog catalog,
                                              ShardPicker picker) {
        return builder().dynamoDb(dynamoDb).table(table).catalog(catalog).picker(picker).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Items per Query page of a heads read: {@code limitPerTenant} plus {@value #HEADS_PAGE_MARGIN}.
     */
    public static int headsPageItems(int limitPerTenant) {
        return QueueHeadsReader.pageItems(limitPerTenant, HEADS_PAGE_MARGIN);
    }

    /**
     * The Query calls a heads read makes on one shard whose flows (one lane of one tenant each,
     * in key order) hold these numbers of admissible items; the shards are read at once, so the
     * largest of these over a model's shards is the read's round trips. One page of
     * {@link #headsPageItems} items, plus one per flow the read jumps past (it has
     * {@code limitPerTenant} items and the page ends inside it), plus one per page that ends inside
     * a flow still short of its limit; counted as DynamoDB answers, where a page that fills its
     * limit reports more even if nothing follows (one empty page).
     */
    public static int headsQueriesOfShard(long[] flowSizesInKeyOrder, int limitPerTenant) {
        return QueueHeadsReader.pagesOfShard(flowSizesInKeyOrder, limitPerTenant, HEADS_PAGE_MARGIN);
    }

    /**
     * {@link #headsQueriesOfShard} for a model whose {@code flows} (lanes × tenants with work) each
     * spread {@code itemsPerFlow} items evenly over {@code shards}, the usual picture under the
     * round-robin {@link ShardPicker}. E.g. 16 shards, five tenants with 50 items each, 50 per
     * tenant: 16 Queries in one round trip. If one of them has 10,000 instead, each shard holds
     * flows of about {625, 4, 4, 4, 4} items: 2 Queries per shard, 32 in 2 round trips.
     */
    public static long headsQueries(int shards, int flows, long itemsPerFlow, int limitPerTenant) {
        long[] perShard = new long[flows];
        Arrays.fill(perShard, Math.floorDiv(itemsPerFlow + shards - 1, shards));
        return (long) shards * headsQueriesOfShard(perShard, limitPerTenant);
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
        List<TransactWriteItem> writes = new ArrayList<>(List.of(TransactWriteItem.builder().put(status).build(),
                TransactWriteItem.builder().put(queued).build()));
        if (request.taskToken() != null) {
            // In the transaction: no crash can leave a queued request that nobody could signal.
            writes.add(TransactWriteItem.builder().put(Put.builder().tableName(table).item(RequestItems.token(
                    record.requestId(), request.taskToken(), record.expiresAtMillis())).build()).build());
        }
        for (int attempt = 1; ; attempt++) {
            try {
                dynamoDb.transactWriteItems(b -> b.transactItems(writes));
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
    public QueueHeads heads(String modelKey, int limitPerTenant, long nowMillis) {
        if (limitPerTenant < 1) {
            throw new IllegalArgumentException("limitPerTenant must be positive");
        }
        return headsReader.read(modelKey, catalog.require(modelKey).shards(), limitPerTenant, nowMillis);
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
                actions.add(TransactWriteItem.builder().update(update.indexedAsUnsettled(item.modelKey(), item.shard(),
                        nowMillis, item.requestId()).transactUpdate(table, item.requestId())).build());
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

    /** One Query of the sparse unsettled index per shard, oldest admission first. */
    @Override
    public List<RequestRecord> unsettled(String modelKey, long admittedBeforeMillis, int limit, long nowMillis) {
        int shards = catalog.require(modelKey).shards();
        List<RequestRecord> found = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            String pk = TableKeys.unsettledPk(modelKey, shard);
            Map<String, AttributeValue> start = null;
            do {
                Map<String, AttributeValue> from = start;
                var page = dynamoDb.query(b -> b.tableName(table).indexName(TableKeys.UNSETTLED_INDEX)
                        .keyConditionExpression("#pk = :pk AND #sk < :before")
                        .expressionAttributeNames(Map.of("#pk", TableKeys.UNSETTLED_PK, "#sk", TableKeys.UNSETTLED_SK))
                        .expressionAttributeValues(Map.of(":pk", s(pk),
                                ":before", s(TableKeys.unsettledBefore(admittedBeforeMillis))))
                        .limit(limit).exclusiveStartKey(from));
                for (Map<String, AttributeValue> item : page.items()) {
                    RequestRecord record = RequestItems.status(item);
                    if (record.isLive(nowMillis) && (record.state() == RequestState.ADMITTED
                            || record.state() == RequestState.INVOKING)) {
                        found.add(record);
                    }
                }
                start = page.lastEvaluatedKey() == null || page.lastEvaluatedKey().isEmpty() ? null
                        : page.lastEvaluatedKey();
            } while (start != null && found.size() < limit);
        }
        found.sort(java.util.Comparator.comparingLong(RequestRecord::admittedAtMillis));
        return found.size() > limit ? List.copyOf(found.subList(0, limit)) : found;
    }

    /** One {@code Select=COUNT} Query chain per shard, the shards at once. */
    @Override
    public long depth(String modelKey, long nowMillis) {
        int shards = catalog.require(modelKey).shards();
        List<Callable<Long>> counts = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            String pk = TableKeys.queuePk(modelKey, shard);
            counts.add(() -> countShard(pk, nowMillis));
        }
        long count = 0;
        for (long shardCount : QueueHeadsReader.runAll(readPool, counts)) {
            count += shardCount;
        }
        return count;
    }

    private long countShard(String pk, long nowMillis) {
        long count = 0;
        Map<String, AttributeValue> start = null;
        do {
            QueryRequest.Builder query = QueryRequest.builder().tableName(table).select(Select.COUNT)
                    .keyConditionExpression("#pk = :pk")
                    .filterExpression("#expiresAt > :nowSeconds AND #deadlineAt > :nowMillis")
                    .expressionAttributeNames(Map.of("#pk", TableKeys.PK, "#expiresAt", TableKeys.EXPIRES_AT,
                            "#deadlineAt", RequestItems.DEADLINE_AT))
                    .expressionAttributeValues(Map.of(":pk", s(pk),
                            ":nowSeconds", n(TableKeys.nowSeconds(nowMillis)), ":nowMillis", n(nowMillis)));
            if (start != null) {
                query.exclusiveStartKey(start);
            }
            QueryResponse page = dynamoDb.query(query.build());
            count += page.count();
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return count;
    }

    private static void retryOnConflict(TransactionCanceledException e, int attempt) {
        boolean conflict = e.cancellationReasons().stream().anyMatch(r -> CONFLICT.equals(r.code()));
        if (!conflict || attempt >= MAX_ATTEMPTS) {
            throw e;
        }
        Backoff.pause(attempt);
    }

    public static final class Builder {
        private DynamoDbClient dynamoDb;
        private String table;
        private ModelCatalog catalog;
        private ShardPicker picker;
        private ExecutorService readPool;
        private int headsPageMargin = HEADS_PAGE_MARGIN;

        private Builder() {
        }

        public Builder dynamoDb(DynamoDbClient value) { this.dynamoDb = value; return this; }
        public Builder table(String value) { this.table = value; return this; }
        public Builder catalog(ModelCatalog value) { this.catalog = value; return this; }
        public Builder picker(ShardPicker value) { this.picker = value; return this; }

        /** Runs the per-shard reads of heads and depth; the queue never shuts it down. */
        public Builder readPool(ExecutorService value) { this.readPool = value; return this; }

        /**
         * Items a heads read's page holds beyond the per-tenant limit, default
         * {@value #HEADS_PAGE_MARGIN}. A larger margin reads more of a heavy tenant per jump but
         * takes more light tenants per page; tests use a tiny one so that every path of the scan
         * happens on a small queue.
         */
        public Builder headsPageMargin(int value) { this.headsPageMargin = value; return this; }

        public DynamoDbRequestQueue build() {
            if (dynamoDb == null || table == null || catalog == null || picker == null) {
                throw new IllegalStateException("dynamoDb, table, catalog and picker are required");
            }
            return new DynamoDbRequestQueue(this);
        }
    }
}
