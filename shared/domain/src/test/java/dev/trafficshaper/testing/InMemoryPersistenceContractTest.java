package dev.trafficshaper.testing;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.usage.UsageSharding;

class InMemoryPersistenceContractTest extends PersistenceContract {

    @Override
    protected Persistence newBackend(ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                     ShardPicker picker) {
        return Persistence.inMemory(catalog, policy, sharding, picker);
    }
}
