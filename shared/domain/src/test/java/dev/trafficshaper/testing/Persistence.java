package dev.trafficshaper.testing;

import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.lease.InMemoryDrainerLeases;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.InMemoryPayloadStore;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.queue.InMemoryRequestQueue;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.InMemoryRequestStore;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.usage.InMemoryUsageLedger;
import dev.trafficshaper.usage.UsageLedger;
import dev.trafficshaper.usage.UsageSharding;

/** All persistence ports of one backend, wired together the way a composition root does it. */
public record Persistence(RequestQueue queue, RequestStore requests, DrainerLeases leases, UsageLedger usage,
                          PayloadStore payloads) {

    public static Persistence inMemory(ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                       ShardPicker picker) {
        InMemoryRequestStore requests = new InMemoryRequestStore();
        InMemoryDrainerLeases leases = new InMemoryDrainerLeases();
        return new Persistence(InMemoryRequestQueue.create(requests, leases, catalog, picker), requests, leases,
                InMemoryUsageLedger.create(sharding), InMemoryPayloadStore.create(policy));
    }
}
