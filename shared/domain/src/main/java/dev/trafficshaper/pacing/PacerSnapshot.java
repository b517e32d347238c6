package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.QuotaDimension;
import java.util.Map;

/**
 * The pacer's state at a moment, for metrics and the models endpoint.
 *
 * @param target          current target share (lowered after throttles)
 * @param slowStartFactor current ramp factor (1.0 when not ramping)
 * @param windowSums      net charges of the last 60 s per limited dimension
 * @param nextSlotMillis  when the spacing allows the next admission
 * @param admitted        admissions so far
 * @param throttles       unexpected throttles reported so far
 */
public record PacerSnapshot(
        double target,
        double slowStartFactor,
        Map<QuotaDimension, Long> windowSums,
        long nextSlotMillis,
        long admitted,
        long throttles) {

    public PacerSnapshot {
        windowSums = Map.copyOf(windowSums);
    }
}
