package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.aws.s3.S3PayloadObjects;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.usage.UsageSharding;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every store port over one table and one payload bucket, assembled once: the Lambda functions
 * and the local runtime with {@code --dynamodb-table} both take their stores from here, with the
 * deployed defaults (round-robin shards, bodies over the inline limit in S3, default usage
 * sharding).
 */
public record DynamoDbStores(DynamoDbRequestStore requests, DynamoDbRequestQueue queue, DynamoDbDrainerLeases leases,
                             DynamoDbPayloadStore payloads, DynamoDbUsageLedger usage,
                             DynamoDbModelStatusBoard board) {

    public static DynamoDbStores create(DynamoDbClient dynamoDb, S3Client s3, String table, String bucket,
                                        ModelCatalog catalog) {
        return new DynamoDbStores(DynamoDbRequestStore.create(dynamoDb, table),
                DynamoDbRequestQueue.create(dynamoDb, table, catalog, ShardPicker.roundRobin()),
                DynamoDbDrainerLeases.create(dynamoDb, table),
                DynamoDbPayloadStore.create(dynamoDb, table, S3PayloadObjects.create(s3, bucket),
                        PayloadPolicy.defaults()),
                DynamoDbUsageLedger.create(dynamoDb, table, UsageSharding.defaults()),
                DynamoDbModelStatusBoard.create(dynamoDb, table));
    }
}
