package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.DynamoDbPersistence;
import dev.trafficshaper.testing.Persistence;
import dev.trafficshaper.testing.PersistenceContract;
import dev.trafficshaper.usage.UsageSharding;

/** The persistence contract against DynamoDB and S3 on a real AWS API emulator. */
class DynamoDbPersistenceContractIT extends PersistenceContract {

    @Override
    protected Persistence newBackend(ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                     ShardPicker picker) {
        return DynamoDbPersistence.onEmulator(AwsEmulator.shared(), catalog, policy, sharding, picker);
    }
}
