package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.pacing.Lane;

/**
 * How many DynamoDB calls each operation of these adapters makes on the drainer's path, and how
 * many of them run one after another (which is what the drainer waits for). A benchmark models the
 * adapters by these figures; {@code DynamoDbCallPatternIT} holds them to the calls the adapters
 * really make against an emulator. Figures assume each query fits one page (1 MB), as queue heads
 * and counts do at any realistic depth per shard.
 *
 * @param calls      requests sent to DynamoDB
 * @param sequential how many of them one after another (the latency the caller sees, in calls)
 */
public record DynamoDbCallPattern(int calls, int sequential) {

    public static final DynamoDbCallPattern ONE = new DynamoDbCallPattern(1, 1);

    /** {@code RequestQueue.heads(model, limitPerLane, now)}: one query per shard and lane. */
    public static DynamoDbCallPattern heads(int shards) {
        int queries = shards * Lane.values().length;
        return new DynamoDbCallPattern(queries, queries);
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

    /** {@code RequestQueue.depth(model, now)}: one counting query per shard. */
    public static DynamoDbCallPattern depth(int shards) {
        return new DynamoDbCallPattern(shards, shards);
    }

    /** Lease acquire, renew and release, status publish and read: one call each. */
    public static DynamoDbCallPattern single() {
        return ONE;
    }

    /** {@code RequestQueue.expire(item, now)}: the status update, then the queue item's removal. */
    public static DynamoDbCallPattern expire() {
        return new DynamoDbCallPattern(2, 2);
    }

    private static int ceilDiv(int items, int perCall) {
        return items <= 0 ? 0 : (items + perCall - 1) / perCall;
    }
}
