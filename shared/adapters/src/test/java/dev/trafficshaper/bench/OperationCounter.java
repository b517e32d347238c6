package dev.trafficshaper.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Counts every DynamoDB call the adapters make, and every item write per partition key per
 * second of simulated time. A transaction counts one write per action (a ConditionCheck also
 * consumes write capacity) on the key it names.
 */
final class OperationCounter implements ExecutionInterceptor {

    private final LongSupplier virtualMillis;
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final LongAdder itemWrites = new LongAdder();
    private final LongAdder transactionalWrites = new LongAdder();
    private final LongAdder itemReads = new LongAdder();
    /** pk -> second -> writes. */
    private final Map<String, Map<Long, AtomicLong>> writesPerKeySecond = new ConcurrentHashMap<>();

    OperationCounter(LongSupplier virtualMillis) {
        this.virtualMillis = virtualMillis;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        calls.computeIfAbsent(request.getClass().getSimpleName().replace("Request", ""), k -> new LongAdder())
                .increment();
        if (request instanceof PutItemRequest put) {
            write(put.item());
        } else if (request instanceof UpdateItemRequest update) {
            write(update.key());
        } else if (request instanceof DeleteItemRequest delete) {
            write(delete.key());
        } else if (request instanceof TransactWriteItemsRequest transaction) {
            for (TransactWriteItem action : transaction.transactItems()) {
                transactionalWrites.increment();
                write(action.put() != null ? action.put().item()
                        : action.update() != null ? action.update().key()
                        : action.delete() != null ? action.delete().key()
                        : action.conditionCheck().key());
            }
        } else if (request instanceof GetItemRequest || request instanceof QueryRequest) {
            itemReads.increment();
        }
    }

    private void write(Map<String, AttributeValue> key) {
        itemWrites.increment();
        long second = Math.floorDiv(virtualMillis.getAsLong(), 1000);
        writesPerKeySecond.computeIfAbsent(key.get("pk").s(), k -> new ConcurrentHashMap<>())
                .computeIfAbsent(second, s -> new AtomicLong()).incrementAndGet();
    }

    Map<String, Long> calls() {
        Map<String, Long> sorted = new TreeMap<>();
        calls.forEach((name, count) -> sorted.put(name, count.sum()));
        return sorted;
    }

    long itemWrites() {
        return itemWrites.sum();
    }

    long transactionalWrites() {
        return transactionalWrites.sum();
    }

    long readCalls() {
        return itemReads.sum();
    }

    /** The largest writes-per-second of each key, over the seconds in {@code [fromSecond, toSecond)}. */
    Map<String, Long> peakWritesPerSecond(long fromSecond, long toSecond) {
        Map<String, Long> peaks = new TreeMap<>();
        writesPerKeySecond.forEach((pk, perSecond) -> perSecond.forEach((second, count) -> {
            if (second >= fromSecond && second < toSecond) {
                peaks.merge(pk, count.get(), Math::max);
            }
        }));
        return peaks;
    }
}
