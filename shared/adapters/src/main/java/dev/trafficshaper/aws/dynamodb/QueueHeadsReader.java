package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.queue.HeadsSelection;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Reads every tenant's queue heads from a model's shards (see {@code RequestQueue.heads}).
 *
 * <p>Why a skip scan: within a shard, queue sort keys group items by lane and tenant ("flows"),
 * each flow oldest first ({@link TableKeys}). One ascending Query from the start of the shard
 * returns the first flows whole; once a page ends inside a flow that already has its
 * {@code limitPerTenant} items, the next Query starts after that flow ({@link TableKeys#afterFlow})
 * instead of reading the rest of it. A tenant with 10,000 queued items therefore costs one page per
 * shard, not 10,000 items, and every tenant behind it is still reached. No index item is kept, so
 * enqueue and admit write exactly what they wrote before (two items, no hot key of their own).
 *
 * <p>Each shard's scan runs as one task on the pool, all shards at once, so a read takes about as
 * long as the longest shard's chain of pages; {@link HeadsSelection} cuts what the shards return,
 * which gives the same heads as one pass over the whole queue.
 *
 * <p>Calls, per shard: one page of {@link #pageItems} items (the limit and a margin), plus one
 * per flow that the scan jumps past (a flow with at least {@code limitPerTenant} admissible items in
 * that shard and more keys after the page's end), plus one per page that ends inside a flow still
 * short of its limit (light tenants spanning pages, a heavy tenant starting beyond the margin,
 * overdue items ahead of a tenant's work). {@link #pagesOfShard} counts it, from flow sizes or item
 * by item with the overdue ones. Load states: <b>light</b> (no flow reaches its limit in a shard
 * and all fit a page: one Query per shard, one round trip); <b>heavy tenants</b> (h flows reach it:
 * 1 + h Queries per shard and round trips, up to 1 + 2h when they start beyond the margin);
 * <b>many light tenants</b> (their items span several pages: one more Query and round trip per
 * page).
 */
final class QueueHeadsReader {

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final ExecutorService pool;
    private final int pageMargin;

    QueueHeadsReader(DynamoDbClient dynamoDb, String table, ExecutorService pool, int pageMargin) {
        if (pageMargin < 0) {
            throw new IllegalArgumentException("pageMargin must not be negative");
        }
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.pool = pool;
        this.pageMargin = pageMargin;
    }

    /**
     * A page holds a tenant's limit and a margin: a heavy flow that starts within the margin of a
     * page fills its limit in that page, and light flows ahead of it come in the same page.
     */
    static int pageItems(int limitPerTenant, int pageMargin) {
        return (int) Math.min(Integer.MAX_VALUE, (long) limitPerTenant + pageMargin);
    }

    /**
     * The Query pages {@link #read} makes on one shard holding flows of these sizes (in key order,
     * every item admissible), which is also its round trips. Counted as DynamoDB answers: a page
     * that reaches its {@code Limit} reports more even when nothing follows, which costs one empty
     * page (an emulator that looks ahead saves it).
     */
    static int pagesOfShard(long[] flowSizesInKeyOrder, int limitPerTenant, int pageMargin) {
        // Past two pages a flow is always full and jumped, so larger flows cost what that one does.
        long cap = 2L * pageItems(limitPerTenant, pageMargin) + 1;
        int items = 0;
        for (long size : flowSizesInKeyOrder) {
            items += (int) Math.min(size, cap);
        }
        int[] flowOf = new int[items];
        boolean[] admissible = new boolean[items];
        int at = 0;
        for (int flow = 0; flow < flowSizesInKeyOrder.length; flow++) {
            for (long i = 0; i < Math.min(flowSizesInKeyOrder[flow], cap); i++) {
                flowOf[at] = flow;
                admissible[at++] = true;
            }
        }
        return pagesOfShard(flowOf, admissible, limitPerTenant, pageMargin);
    }

    /**
     * The Query pages {@link #read} makes on one shard holding these items in key order: each
     * item's flow (flows contiguous, numbered upwards) and whether it is admissible (an overdue
     * item is read but is not work; an item past its retention is read by the page but filtered
     * out). This is {@link #scanShard}'s loop over positions instead of items.
     */
    static int pagesOfShard(int[] flowOf, boolean[] admissible, int limitPerTenant, int pageMargin) {
        int page = pageItems(limitPerTenant, pageMargin);
        int[] kept = new int[flowOf.length == 0 ? 0 : flowOf[flowOf.length - 1] + 1];
        int pages = 0;
        int position = 0;
        while (true) {
            pages++;
            if (flowOf.length - position < page) {
                return pages;
            }
            int end = position + page;
            for (int i = position; i < end; i++) {
                if (admissible[i] && kept[flowOf[i]] < limitPerTenant) {
                    kept[flowOf[i]]++;
                }
            }
            int lastFlow = flowOf[end - 1];
            position = end;
            if (kept[lastFlow] >= limitPerTenant) {
                while (position < flowOf.length && flowOf[position] == lastFlow) {
                    position++;
                }
            }
        }
    }

    QueueHeads read(String modelKey, int shards, int limitPerTenant, long nowMillis) {
        List<Callable<List<QueueItem>>> scans = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            String pk = TableKeys.queuePk(modelKey, shard);
            scans.add(() -> scanShard(pk, limitPerTenant, nowMillis));
        }
        List<QueueItem> scanned = new ArrayList<>();
        for (List<QueueItem> kept : runAll(pool, scans)) {
            scanned.addAll(kept);
        }
        return QueueHeads.select(scanned, limitPerTenant, nowMillis);
    }

    private List<QueueItem> scanShard(String pk, int limitPerTenant, long nowMillis) {
        HeadsSelection selection = HeadsSelection.create(limitPerTenant, nowMillis);
        Set<String> fullFlows = new HashSet<>();
        int page = pageItems(limitPerTenant, pageMargin);
        String from = null;
        Map<String, AttributeValue> start = null;
        while (true) {
            QueryResponse response = dynamoDb.query(pageOf(pk, from, start, page, nowMillis));
            for (Map<String, AttributeValue> raw : response.items()) {
                if (!selection.offer(RequestItems.queueItem(raw))) {
                    fullFlows.add(TableKeys.flowPrefixOf(raw.get(TableKeys.SK).s()));
                }
            }
            if (!response.hasLastEvaluatedKey() || response.lastEvaluatedKey().isEmpty()) {
                break;
            }
            Map<String, AttributeValue> last = response.lastEvaluatedKey();
            String lastFlow = TableKeys.flowPrefixOf(last.get(TableKeys.SK).s());
            if (fullFlows.contains(lastFlow)) {
                from = TableKeys.afterFlow(lastFlow);
                start = null;
            } else {
                start = last;
            }
        }
        QueueHeads kept = selection.heads();
        List<QueueItem> items = new ArrayList<>(kept.work());
        items.addAll(kept.overdue());
        return items;
    }

    private QueryRequest pageOf(String pk, String from, Map<String, AttributeValue> start, int page,
                                long nowMillis) {
        Map<String, String> names = new HashMap<>(Map.of("#pk", TableKeys.PK, "#expiresAt", TableKeys.EXPIRES_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":pk", s(pk),
                ":nowSeconds", n(TableKeys.nowSeconds(nowMillis))));
        String keyCondition = "#pk = :pk";
        if (from != null) {
            keyCondition += " AND #sk > :from";
            names.put("#sk", TableKeys.SK);
            values.put(":from", s(from));
        }
        QueryRequest.Builder query = QueryRequest.builder().tableName(table).consistentRead(true)
                .keyConditionExpression(keyCondition)
                .filterExpression("#expiresAt > :nowSeconds")
                .expressionAttributeNames(names).expressionAttributeValues(values)
                .limit(page);
        if (start != null) {
            query.exclusiveStartKey(start);
        }
        return query.build();
    }

    /** Runs every task on {@code pool} and returns their results in order; the first failure is rethrown. */
    static <T> List<T> runAll(ExecutorService pool, List<Callable<T>> tasks) {
        if (tasks.size() == 1) {
            try {
                return List.of(tasks.get(0).call());
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        try {
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(task));
            }
            List<T> results = new ArrayList<>(tasks.size());
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the queue", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            futures.forEach(future -> future.cancel(true));
        }
    }
}
