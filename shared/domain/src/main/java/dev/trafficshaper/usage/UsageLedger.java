package dev.trafficshaper.usage;

/** Actual usage of completed requests, sharded by time bucket and shard so no key runs hot. */
public interface UsageLedger {

    /** Records {@code settlement} once; false when this request was already settled. */
    boolean record(Settlement settlement, long nowMillis);

    /**
     * The sum of the model's live settlements in the buckets that start in
     * {@code [fromMillis, toMillis)}, i.e. whole buckets.
     */
    UsageTotals totals(String modelKey, long fromMillis, long toMillis, long nowMillis);
}
