package dev.trafficshaper.testing;

import dev.trafficshaper.aws.dynamodb.DynamoDbDrainerLeases;
import dev.trafficshaper.aws.dynamodb.DynamoDbPayloadStore;
import dev.trafficshaper.aws.dynamodb.DynamoDbRequestQueue;
import dev.trafficshaper.aws.dynamodb.DynamoDbRequestStore;
import dev.trafficshaper.aws.dynamodb.DynamoDbUsageLedger;
import dev.trafficshaper.aws.s3.S3PayloadObjects;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.usage.UsageSharding;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;

/** The persistence ports on DynamoDB and S3, wired the way a composition root does it. */
public final class DynamoDbPersistence {

    private DynamoDbPersistence() {
    }

    public static Persistence dynamoDb(DynamoDbClient dynamoDb, String table, S3Client s3, String bucket,
                                       ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                       ShardPicker picker) {
        return dynamoDb(dynamoDb, table, s3, bucket, catalog, policy, sharding, picker,
                DynamoDbRequestQueue.HEADS_PAGE_MARGIN);
    }

    /** As above, with the queue's heads pages holding {@code headsPageMargin} items beyond the limit. */
    public static Persistence dynamoDb(DynamoDbClient dynamoDb, String table, S3Client s3, String bucket,
                                       ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                       ShardPicker picker, int headsPageMargin) {
        DynamoDbRequestQueue queue = DynamoDbRequestQueue.builder().dynamoDb(dynamoDb).table(table).catalog(catalog)
                .picker(picker).headsPageMargin(headsPageMargin).build();
        return new Persistence(queue,
                DynamoDbRequestStore.create(dynamoDb, table), DynamoDbDrainerLeases.create(dynamoDb, table),
                DynamoDbUsageLedger.create(dynamoDb, table, sharding),
                DynamoDbPayloadStore.create(dynamoDb, table, S3PayloadObjects.create(s3, bucket), policy));
    }

    /** A fresh table and bucket on the shared emulator. */
    public static Persistence onEmulator(AwsEmulator aws, ModelCatalog catalog, PayloadPolicy policy,
                                         UsageSharding sharding, ShardPicker picker) {
        return onEmulator(aws, catalog, policy, sharding, picker, DynamoDbRequestQueue.HEADS_PAGE_MARGIN);
    }

    /** A fresh table and bucket on the shared emulator, heads pages {@code headsPageMargin} beyond the limit. */
    public static Persistence onEmulator(AwsEmulator aws, ModelCatalog catalog, PayloadPolicy policy,
                                         UsageSharding sharding, ShardPicker picker, int headsPageMargin) {
        return dynamoDb(aws.dynamoDb(), aws.createTable("shaper"), aws.s3(), aws.createBucket("payloads"), catalog,
                policy, sharding, picker, headsPageMargin);
    }
}
