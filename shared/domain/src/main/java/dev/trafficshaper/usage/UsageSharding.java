package dev.trafficshaper.usage;

import java.time.Duration;

/**
 * How settlements are spread over keys. One key per (model, time bucket, shard): at R completions
 * per second a key takes R / shards writes per second (16 shards hold 2,000/s to ~125/s per key),
 * and a new bucket starts fresh keys every {@code bucketMillis}. The shard is a hash of the request
 * id, so a retried settlement lands on the same key and is recognised as a repeat.
 */
public record UsageSharding(int shards, long bucketMillis, long retentionMillis) {

    public UsageSharding {
        if (shards < 1 || shards > 256) {
            throw new IllegalArgumentException("shards must be in [1, 256]");
        }
        if (bucketMillis < 1000 || bucketMillis % 1000 != 0) {
            throw new IllegalArgumentException("bucketMillis must be a positive whole number of seconds");
        }
        if (retentionMillis < bucketMillis) {
            throw new IllegalArgumentException("retentionMillis must be at least one bucket");
        }
    }

    public static UsageSharding defaults() {
        return new UsageSharding(16, Duration.ofMinutes(1).toMillis(), Duration.ofDays(2).toMillis());
    }

    public long bucketStart(long millis) {
        return Math.floorDiv(millis, bucketMillis) * bucketMillis;
    }

    public int shardOf(String requestId) {
        int h = requestId.hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        return Math.floorMod(h, shards);
    }

    /** When a settlement started at {@code startedAtMillis} is dropped (a whole second). */
    public long expiresAt(long startedAtMillis) {
        return Math.floorDiv(bucketStart(startedAtMillis) + bucketMillis + retentionMillis + 999, 1000) * 1000;
    }
}
