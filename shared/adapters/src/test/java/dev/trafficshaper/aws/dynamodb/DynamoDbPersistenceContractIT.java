package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.DynamoDbPersistence;
import dev.trafficshaper.testing.Persistence;
import dev.trafficshaper.testing.PersistenceContract;
import dev.trafficshaper.usage.UsageSharding;

/**
 * The persistence contract against DynamoDB and S3 on a real AWS API emulator. Heads are read in
 * pages of one item beyond the per-tenant limit, so the contract's small queues take every path of
 * the scan (jumping past a full tenant, paging on within one, paging through overdue items) that
 * production pages only take on larger queues; the answers must not depend on the page size.
 */
class DynamoDbPersistenceContractIT extends PersistenceContract {

    @Override
    protected Persistence newBackend(ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                     ShardPicker picker) {
        return DynamoDbPersistence.onEmulator(AwsEmulator.shared(), catalog, policy, sharding, picker, 1);
    }
}
