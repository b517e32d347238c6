package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.queue.ShardFlow;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many DynamoDB calls each operation of these adapters makes on the drainer's path, and how
 * many of them run one after another (which is what the drainer waits for). A benchmark models the
 * adapters by these figures; {@code DynamoDbCallPatternIT} holds them to the calls the adapters
 * really make against an emulator. Figures assume each counting query fits one page (1 MB), as
 * counts do at any realistic depth per shard; heads are counted page by page from the queue's items.
 *
 * @param calls      requests sent to DynamoDB
 * @param sequential how many of them one after another (the latency the caller sees, in calls)
 */
public record DynamoDbCallPattern(int calls, int sequential) {

    public static final DynamoDbCallPattern ONE = new DynamoDbCallPattern(1, 1);

    /**
     * {@code RequestQueue.heads(model, limitPerTenant, now)} on a queue whose shards each fit one
     * page ({@link DynamoDbRequestQueue#headsPageItems}) without a tenant filling it: one Query per
     * shard, the shards at once on the adapter's read pool.
     */
    public static DynamoDbCallPattern heads(int shards) {
        return new DynamoDbCallPattern(shards, rounds(shards));
    }

    /**
     * {@code RequestQueue.heads(model, limitPerTenant, now)} on a queue laid out as {@code layout}
     * (each flow's admissible items per shard, e.g. {@code InMemoryRequestQueue.layout}): each
     * shard's chain of Queries as {@link DynamoDbRequestQueue#headsQueriesOfShard} counts it, its
     * flows in key order, the shards at once on the adapter's read pool, so the read waits for its
     * longest chain (or, with more shards than pool threads, for its share of all the pages).
     * Overdue items ahead of a tenant's work would add pages; they are left out.
     */
    public static DynamoDbCallPattern heads(int shards, Collection<ShardFlow> layout, int limitPerTenant) {
        Map<Integer, Map<String, Long>> byShard = new HashMap<>();
        for (ShardFlow flow : layout) {
            String prefix = TableKeys.flowPrefix(flow.lane(), TableKeys.tenantDigest(flow.tenant()));
            byShard.computeIfAbsent(flow.shard(), shard -> new TreeMap<>()).merge(prefix, flow.admissible(),
                    Long::sum);
        }
        int calls = 0;
        int longest = 0;
        for (int shard = 0; shard < shards; shard++) {
            long[] sizes = byShard.getOrDefault(shard, Map.of()).values().stream().mapToLong(Long::longValue)
                    .toArray();
            int pages = DynamoDbRequestQueue.headsQueriesOfShard(sizes, limitPerTenant);
            calls += pages;
            longest = Math.max(longest, pages);
        }
        int threads = DynamoDbRequestQueue.DEFAULT_READ_THREADS;
        return new DynamoDbCallPattern(calls, Math.max(longest, ceilDiv(calls, threads)));
    }

    /** {@code RequestQueue.admit(lease, items, now)}: one transaction per {@link DynamoDbRequestQueue#ADMIT_BATCH}. */
    public static DynamoDbCallPattern admit(int items) {
        int transactions = ceilDiv(items, DynamoDbRequestQueue.ADMIT_BATCH);
        return new DynamoDbCallPattern(transactions, transactions);
    }

    /** {@code RequestStore.findAll(ids, now)}: one BatchGetItem per 100 keys. */
    public static DynamoDbCallPattern findAll(int ids) {
        int batches = ceilDiv(ids, DynamoDbRequestStore.BATCH_GET);
        return new DynamoDbCallPattern(batches, batches);
    }

    /** {@code RequestQueue.depth(model, now)}: one counting query per shard, the shards at once. */
    public static DynamoDbCallPattern depth(int shards) {
        return new DynamoDbCallPattern(shards, rounds(shards));
    }

    /** Lease acquire, renew and release, status publish and read: one call each. */
    public static DynamoDbCallPattern single() {
        return ONE;
    }

    /** {@code RequestQueue.expire(item, now)}: the status update, then the queue item's removal. */
    public static DynamoDbCallPattern expire() {
        return new DynamoDbCallPattern(2, 2);
    }

    /** Round trips of one call per shard on the adapter's read pool. */
    private static int rounds(int shards) {
        return ceilDiv(shards, DynamoDbRequestQueue.DEFAULT_READ_THREADS);
    }

    private static int ceilDiv(int items, int perCall) {
        return items <= 0 ? 0 : (items + perCall - 1) / perCall;
    }
}
