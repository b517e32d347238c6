package dev.trafficshaper.loadtest.report;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.trafficshaper.loadtest.harness.OutcomeStatus;

/**
 * One scheduled request of one arm after reconciliation: its terminal outcome if any source
 * reported one, else {@code LOST}. Times are milliseconds after the run's start (the schedule's
 * time 0), as the simulator's virtual time is.
 *
 * @param outcome {@code SUCCEEDED}, {@code FAILED} (failed, expired or rejected) or {@code LOST}
 * @param status  the terminal status as reported; null when lost
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReconciledRequest(
        String arm,
        String id,
        int index,
        long scheduledMillis,
        Long sentMillis,
        Long firstCallMillis,
        Long lastCallMillis,
        Long finishedMillis,
        String outcome,
        OutcomeStatus status,
        String reason,
        Integer httpStatus,
        int bedrockCalls,
        int throttles,
        long inputTokens,
        long outputTokens,
        long cacheReadTokens,
        long cacheWriteTokens) {

    public static final String SUCCEEDED = "SUCCEEDED";
    public static final String FAILED = "FAILED";
    public static final String LOST = "LOST";

    @JsonIgnore
    public boolean succeeded() {
        return SUCCEEDED.equals(outcome);
    }

    @JsonIgnore
    public boolean lost() {
        return LOST.equals(outcome);
    }

    /** Scheduled arrival to final outcome; null when lost. */
    @JsonIgnore
    public Long latencyMillis() {
        return finishedMillis == null ? null : Math.max(0, finishedMillis - scheduledMillis);
    }
}
