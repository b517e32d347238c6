package dev.trafficshaper.queue;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Picks the shard for a new queue item. Round robin gives each of N shards exactly 1/N of one
 * process's enqueues; a random start keeps many processes that start together from all writing
 * shard 0 first. The pick is stored on the request, so a retried enqueue reuses it.
 */
public final class ShardPicker {

    private final AtomicLong next;

    private ShardPicker(long start) {
        this.next = new AtomicLong(start);
    }

    public static ShardPicker roundRobin() {
        return new ShardPicker(ThreadLocalRandom.current().nextInt(1 << 16));
    }

    public static ShardPicker startingAt(long start) {
        return new ShardPicker(start);
    }

    public int pick(int shards) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be positive");
        }
        return (int) Math.floorMod(next.getAndIncrement(), (long) shards);
    }
}
