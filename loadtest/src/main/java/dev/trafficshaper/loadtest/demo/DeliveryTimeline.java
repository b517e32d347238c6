package dev.trafficshaper.loadtest.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * Tokens delivered over time, from samples of a cumulative counter (the simulator's tokens of
 * successful calls, booked when each call ends). A bucket holds what the counter gained between
 * the last samples at or before its two edges, so sampling a few times a second places each call
 * in the right 10 s bucket up to the sampling interval.
 */
final class DeliveryTimeline {

    private record Sample(long atMillis, long cumulative) {
    }

    private final List<Sample> samples = new ArrayList<>();

    /** Samples must come in time order. */
    synchronized void record(long atMillis, long cumulative) {
        samples.add(new Sample(atMillis, cumulative));
    }

    /** Tokens gained in each bucket of {@code bucketMillis}, covering {@code [0, untilMillis)}. */
    synchronized long[] perBucket(long bucketMillis, long untilMillis) {
        int buckets = (int) Math.max(1, (untilMillis + bucketMillis - 1) / bucketMillis);
        long[] values = new long[buckets];
        for (int b = 0; b < buckets; b++) {
            values[b] = valueAt((b + 1) * bucketMillis) - valueAt(b * bucketMillis);
        }
        return values;
    }

    private long valueAt(long millis) {
        long value = 0;
        for (Sample sample : samples) {
            if (sample.atMillis() > millis) {
                break;
            }
            value = sample.cumulative();
        }
        return value;
    }
}
