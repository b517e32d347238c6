package dev.trafficshaper.local;

import dev.trafficshaper.aws.dynamodb.DynamoDbStores;
import dev.trafficshaper.aws.dynamodb.TableKeys;
import dev.trafficshaper.aws.dynamodb.TableLayout;
import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.lease.InMemoryDrainerLeases;
import dev.trafficshaper.lifecycle.InMemoryModelStatusBoard;
import dev.trafficshaper.lifecycle.ModelStatusBoard;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.InMemoryPayloadStore;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.queue.InMemoryRequestQueue;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.InMemoryRequestStore;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.usage.InMemoryUsageLedger;
import dev.trafficshaper.usage.UsageLedger;
import dev.trafficshaper.usage.UsageSharding;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where the local runtime keeps its state: in memory (the default; gone when the process ends), or
 * in a DynamoDB table and S3 bucket — an emulator's through {@code AWS_ENDPOINT_URL}, or real ones —
 * with exactly the adapters the Lambda functions use ({@link DynamoDbStores}). Both pass one
 * contract suite.
 *
 * <p>{@code withCallbacks} lists the requests stored with a callback URL, ended or not; the runtime
 * reads it once as it starts, so that the webhooks a stopped process had waiting in memory are
 * queued again. Empty in memory, where nothing outlives the process; a Scan of the status items on
 * DynamoDB. {@code endedWithoutDelivery} lists the ended requests with a callback whose delivery
 * carries no hand-off mark, for the running runtime's {@link UndeliveredSweep}: empty in memory, a
 * Scan on DynamoDB.
 */
public record LocalStores(RequestStore requests, RequestQueue queue, DrainerLeases leases, PayloadStore payloads,
                          UsageLedger usage, ModelStatusBoard board, Supplier<List<String>> withCallbacks,
                          Supplier<List<String>> endedWithoutDelivery) {

    /** Stores that list no ended request without a delivery. */
    public LocalStores(RequestStore requests, RequestQueue queue, DrainerLeases leases, PayloadStore payloads,
                       UsageLedger usage, ModelStatusBoard board, Supplier<List<String>> withCallbacks) {
        this(requests, queue, leases, payloads, usage, board, withCallbacks, List::of);
    }

    /** The in-memory adapters, sharing one record store as the in-memory queue requires. */
    public static Function<ModelCatalog, LocalStores> inMemory() {
        return catalog -> {
            InMemoryRequestStore requests = new InMemoryRequestStore();
            InMemoryDrainerLeases leases = new InMemoryDrainerLeases();
            return new LocalStores(requests, InMemoryRequestQueue.create(requests, leases, catalog,
                    ShardPicker.roundRobin()), leases, InMemoryPayloadStore.create(PayloadPolicy.defaults()),
                    InMemoryUsageLedger.create(UsageSharding.defaults()), new InMemoryModelStatusBoard(), List::of);
        };
    }

    /** The DynamoDB and S3 adapters; creates the table (and the bucket) if they do not exist yet. */
    public static Function<ModelCatalog, LocalStores> dynamoDb(DynamoDbClient dynamoDb, S3Client s3, String table,
                                                               String bucket) {
        return catalog -> {
            try {
                dynamoDb.describeTable(b -> b.tableName(table));
            } catch (ResourceNotFoundException e) {
                TableLayout.create(dynamoDb, table);
            }
            if (s3.listBuckets().buckets().stream().noneMatch(existing -> existing.name().equals(bucket))) {
                s3.createBucket(b -> b.bucket(bucket));
            }
            DynamoDbStores stores = DynamoDbStores.create(dynamoDb, s3, table, bucket, catalog);
            return new LocalStores(stores.requests(), stores.queue(), stores.leases(), stores.payloads(),
                    stores.usage(), stores.board(), () -> requestsWithCallbacks(dynamoDb, table),
                    () -> endedWithoutDelivery(dynamoDb, table));
        };
    }

    private static List<String> requestsWithCallbacks(DynamoDbClient dynamoDb, String table) {
        return statusItems(dynamoDb, table, "#sk = :status AND attribute_exists(callbackUrl)", Map.of("#sk",
                TableKeys.SK), Map.of(":status", AttributeValue.fromS(TableKeys.STATUS_SK)));
    }

    private static List<String> endedWithoutDelivery(DynamoDbClient dynamoDb, String table) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":status", AttributeValue.fromS(TableKeys.STATUS_SK)));
        List<String> ended = new ArrayList<>();
        for (RequestState state : RequestState.values()) {
            if (state.isTerminal()) {
                values.put(":" + state.name(), AttributeValue.fromS(state.name()));
                ended.add(":" + state.name());
            }
        }
        return statusItems(dynamoDb, table, "#sk = :status AND attribute_exists(callbackUrl)"
                + " AND attribute_not_exists(handedOffAt)"
                + " AND #state IN (" + String.join(", ", ended) + ")",
                Map.of("#sk", TableKeys.SK, "#state", "state"), values);
    }

    private static List<String> statusItems(DynamoDbClient dynamoDb, String table, String filter,
                                            Map<String, String> names, Map<String, AttributeValue> values) {
        String prefix = TableKeys.requestPk("");
        List<String> ids = new ArrayList<>();
        dynamoDb.scanPaginator(b -> b.tableName(table).projectionExpression("#pk").filterExpression(filter)
                        .expressionAttributeNames(withPk(names)).expressionAttributeValues(values))
                .items().forEach(item -> ids.add(item.get(TableKeys.PK).s().substring(prefix.length())));
        return ids;
    }

    private static Map<String, String> withPk(Map<String, String> names) {
        Map<String, String> all = new HashMap<>(names);
        all.put("#pk", TableKeys.PK);
        return all;
    }
}
