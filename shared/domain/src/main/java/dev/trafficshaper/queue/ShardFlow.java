package dev.trafficshaper.queue;

import dev.trafficshaper.pacing.Lane;
import java.util.Objects;

/**
 * How many admissible items one flow (a lane of one tenant) has in one shard of a model's queue:
 * what a table adapter's heads read costs depends on, so a benchmark over the in-memory queue can
 * model one ({@link InMemoryRequestQueue#layout}).
 */
public record ShardFlow(int shard, Lane lane, String tenant, long admissible) {

    public ShardFlow {
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(tenant, "tenant");
    }
}
