package dev.trafficshaper.loadtest.aws;

import dev.trafficshaper.loadtest.harness.SliceItem;

/** A worker function's input, as the Distributed Map's item selector builds it: the run and one item. */
public record SliceTask(String runId, SliceItem slice) {

    public SliceTask {
        if (runId == null || slice == null) {
            throw new IllegalArgumentException("a slice task needs runId and slice");
        }
    }
}
