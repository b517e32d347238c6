package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.ClaimRaceContract;
import dev.trafficshaper.testing.DynamoDbPersistence;
import dev.trafficshaper.testing.Persistence;
import dev.trafficshaper.usage.UsageSharding;

/** The claim and lease races over real HTTP against the emulator. */
class DynamoDbClaimRaceIT extends ClaimRaceContract {

    @Override
    protected Persistence newBackend(ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                     ShardPicker picker) {
        return DynamoDbPersistence.onEmulator(AwsEmulator.shared(), catalog, policy, sharding, picker);
    }
}
