package dev.trafficshaper.usage;

import java.util.LinkedHashMap;
import java.util.Map;

/** Settlements in a map keyed like the table: model, bucket, shard and request id. */
public final class InMemoryUsageLedger implements UsageLedger {

    private final UsageSharding sharding;
    private final Map<String, Settlement> settlements = new LinkedHashMap<>();

    private InMemoryUsageLedger(UsageSharding sharding) {
        this.sharding = sharding;
    }

    public static InMemoryUsageLedger create(UsageSharding sharding) {
        return new InMemoryUsageLedger(sharding);
    }

    @Override
    public synchronized boolean record(Settlement settlement, long nowMillis) {
        String key = settlement.modelKey() + "/" + sharding.bucketStart(settlement.startedAtMillis()) + "/"
                + sharding.shardOf(settlement.requestId()) + "/" + settlement.requestId();
        Settlement existing = settlements.get(key);
        if (existing != null && sharding.expiresAt(existing.startedAtMillis()) > nowMillis) {
            return false;
        }
        settlements.put(key, settlement);
        return true;
    }

    @Override
    public synchronized UsageTotals totals(String modelKey, long fromMillis, long toMillis, long nowMillis) {
        long firstBucket = sharding.bucketStart(fromMillis) < fromMillis
                ? sharding.bucketStart(fromMillis) + sharding.bucketMillis() : sharding.bucketStart(fromMillis);
        UsageTotals totals = UsageTotals.NONE;
        for (Settlement s : settlements.values()) {
            long bucket = sharding.bucketStart(s.startedAtMillis());
            if (s.modelKey().equals(modelKey) && bucket >= firstBucket && bucket < toMillis
                    && sharding.expiresAt(s.startedAtMillis()) > nowMillis) {
                totals = totals.plus(s);
            }
        }
        return totals;
    }
}
