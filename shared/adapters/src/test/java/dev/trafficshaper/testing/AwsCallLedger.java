package dev.trafficshaper.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Every AWS call a set of SDK clients makes, by caller (the function that made it), service and
 * operation, with the DynamoDB request units each call is billed. Add {@link #interceptor(String)}
 * to each client a function builds; calls a test replaces in process (an asynchronous Lambda invoke
 * run as a thread) are {@link #record recorded} by hand.
 *
 * <p>Emulators do not report consumed capacity faithfully, so units are computed from item sizes
 * ({@link DynamoDbItemSize}) as DynamoDB bills them: a write by the larger of the item before and
 * after it (read back after the write through an uncounted client), twice inside a transaction, a
 * failed conditional write still charged; a read by the item sizes it returns, half for eventually
 * consistent reads. A {@code Select=COUNT} query returns no items: it is charged
 * {@value #COUNTED_ITEM_BYTES} bytes per item it scanned.
 */
public final class AwsCallLedger {

    /** One kind of call: who made it, to which service, which operation. */
    public record Call(String caller, String service, String operation) implements Comparable<Call> {
        @Override
        public int compareTo(Call other) {
            return (caller + "\0" + service + "\0" + operation)
                    .compareTo(other.caller + "\0" + other.service + "\0" + other.operation);
        }
    }

    /** What one kind of call added up to: calls, DynamoDB write units and read units in halves. */
    public record Tally(long calls, long writeUnits, long readHalfUnits) {
    }

    static final int COUNTED_ITEM_BYTES = 512;
    private static final List<String> KEY_NAMES = List.of("pk", "sk");

    private final DynamoDbClient sizer;
    private final Map<Call, LongAdder[]> tallies = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> invocations = new ConcurrentHashMap<>();
    private final Map<String, Long> itemBytes = new ConcurrentHashMap<>();

    private AwsCallLedger(DynamoDbClient sizer) {
        this.sizer = sizer;
    }

    /** A ledger that reads items back through {@code sizer}, a client without this ledger's interceptor. */
    public static AwsCallLedger create(DynamoDbClient sizer) {
        return new AwsCallLedger(sizer);
    }

    /** Counts the calls of the client it is added to as {@code caller}'s. */
    public ExecutionInterceptor interceptor(String caller) {
        return new ExecutionInterceptor() {
            @Override
            public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
                count(onThread(caller), attributes, context.request(), context.response(), false);
            }

            @Override
            public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
                count(onThread(caller), attributes, context.request(), context.response().orElse(null), true);
            }
        };
    }

    /** The suffix of calls a drainer makes on its inline-call threads: a request's own calls, not the drain loop's. */
    public static final String INLINE_CALLS = ", inline calls";

    /**
     * A drainer that runs Bedrock calls itself makes them on its {@code inline-call} threads (a sync
     * client's interceptors run on the calling thread): those are each request's calls, told apart
     * from the drain loop's periodic ones.
     */
    private static String onThread(String caller) {
        return Thread.currentThread().getName().startsWith("inline-call") ? caller + INLINE_CALLS : caller;
    }

    /** A call made in process instead of through a client (e.g. an asynchronous Lambda invoke). */
    public void record(String caller, String service, String operation) {
        add(new Call(caller, service, operation), 0, 0);
    }

    /** One invocation of a Lambda function. */
    public void invoked(String function) {
        invocations.computeIfAbsent(function, f -> new LongAdder()).increment();
    }

    public Map<Call, Tally> tallies() {
        Map<Call, Tally> sorted = new TreeMap<>();
        tallies.forEach((call, sums) -> sorted.put(call, new Tally(sums[0].sum(), sums[1].sum(), sums[2].sum())));
        return sorted;
    }

    public Map<String, Long> invocations() {
        Map<String, Long> sorted = new TreeMap<>();
        invocations.forEach((function, count) -> sorted.put(function, count.sum()));
        return sorted;
    }

    /** Forgets the counts (not the item sizes it has seen), e.g. after a warm-up request. */
    public void reset() {
        tallies.clear();
        invocations.clear();
    }

    private void count(String caller, ExecutionAttributes attributes, SdkRequest request, SdkResponse response,
                       boolean failed) {
        String service = attributes.getAttribute(SdkExecutionAttribute.SERVICE_NAME);
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        long writeUnits = writeUnits(request);
        long readHalfUnits = failed ? 0 : readHalfUnits(request, response);
        add(new Call(caller, service, operation), writeUnits, readHalfUnits);
    }

    private void add(Call call, long writeUnits, long readHalfUnits) {
        LongAdder[] sums = tallies.computeIfAbsent(call, c -> new LongAdder[] {new LongAdder(), new LongAdder(),
                new LongAdder()});
        sums[0].increment();
        sums[1].add(writeUnits);
        sums[2].add(readHalfUnits);
    }

    private long writeUnits(SdkRequest request) {
        if (request instanceof PutItemRequest put) {
            return written(put.tableName(), keyOf(put.item()), 1);
        }
        if (request instanceof UpdateItemRequest update) {
            return written(update.tableName(), update.key(), 1);
        }
        if (request instanceof DeleteItemRequest delete) {
            return written(delete.tableName(), delete.key(), 1);
        }
        if (request instanceof TransactWriteItemsRequest transaction) {
            long units = 0;
            for (TransactWriteItem action : transaction.transactItems()) {
                if (action.put() != null) {
                    units += written(action.put().tableName(), keyOf(action.put().item()), 2);
                } else if (action.update() != null) {
                    units += written(action.update().tableName(), action.update().key(), 2);
                } else if (action.delete() != null) {
                    units += written(action.delete().tableName(), action.delete().key(), 2);
                } else {
                    units += written(action.conditionCheck().tableName(), action.conditionCheck().key(), 2);
                }
            }
            return units;
        }
        return 0;
    }

    /** Units of one item's write: the larger of its size before (last seen) and after (read back now). */
    private long written(String table, Map<String, AttributeValue> key, int factor) {
        String id = id(table, key);
        long before = itemBytes.getOrDefault(id, 0L);
        long after = DynamoDbItemSize.of(sizer.getItem(b -> b.tableName(table).key(key).consistentRead(true)).item());
        itemBytes.put(id, after);
        return factor * DynamoDbItemSize.writeUnits(Math.max(before, after));
    }

    private long readHalfUnits(SdkRequest request, SdkResponse response) {
        if (request instanceof GetItemRequest get && response instanceof GetItemResponse got) {
            return DynamoDbItemSize.readHalfUnits(seen(get.tableName(), get.key(), got.item()),
                    Boolean.TRUE.equals(get.consistentRead()));
        }
        if (request instanceof BatchGetItemRequest batch && response instanceof BatchGetItemResponse got) {
            long halves = 0;
            for (Map.Entry<String, KeysAndAttributes> table : batch.requestItems().entrySet()) {
                boolean consistent = Boolean.TRUE.equals(table.getValue().consistentRead());
                Map<Map<String, AttributeValue>, Map<String, AttributeValue>> found = new java.util.HashMap<>();
                for (Map<String, AttributeValue> item : got.responses().getOrDefault(table.getKey(), List.of())) {
                    found.put(keyOf(item), item);
                }
                for (Map<String, AttributeValue> key : table.getValue().keys()) {
                    halves += DynamoDbItemSize.readHalfUnits(seen(table.getKey(), key, found.get(key)), consistent);
                }
            }
            return halves;
        }
        if (request instanceof QueryRequest query && response instanceof QueryResponse got) {
            long bytes;
            if (query.select() == Select.COUNT) {
                bytes = (long) got.scannedCount() * COUNTED_ITEM_BYTES;
            } else {
                bytes = 0;
                for (Map<String, AttributeValue> item : got.items()) {
                    bytes += seen(query.tableName(), keyOf(item), item);
                }
            }
            return DynamoDbItemSize.readHalfUnits(bytes, Boolean.TRUE.equals(query.consistentRead()));
        }
        return 0;
    }

    /** Bytes a read of this item is billed for: the whole item, even when a projection returned less. */
    private long seen(String table, Map<String, AttributeValue> key, Map<String, AttributeValue> returned) {
        long size = DynamoDbItemSize.of(returned);
        return Math.max(size, itemBytes.getOrDefault(id(table, key), 0L));
    }

    private static String id(String table, Map<String, AttributeValue> key) {
        StringBuilder id = new StringBuilder(table);
        for (String name : KEY_NAMES) {
            id.append('|').append(key.get(name));
        }
        return id.toString();
    }

    private static Map<String, AttributeValue> keyOf(Map<String, AttributeValue> item) {
        Map<String, AttributeValue> key = new java.util.LinkedHashMap<>();
        for (String name : KEY_NAMES) {
            if (item.containsKey(name)) {
                key.put(name, item.get(name));
            }
        }
        return key;
    }

    /** The tallies as lines "caller service operation calls writeUnits readUnits", for a report. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        tallies().forEach((call, tally) -> lines.add(String.join(" ", call.caller(), call.service(), call.operation(),
                Long.toString(tally.calls()), Long.toString(tally.writeUnits()),
                Double.toString(tally.readHalfUnits() / 2.0))));
        return lines;
    }
}
