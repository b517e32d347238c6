package dev.trafficshaper.loadtest.harness;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One line of a run's outcome files (JSON Lines): what one source learned about one request. A
 * worker writes a direct arm's request whole once it has its final answer; for the shaper arm the
 * worker writes the submission ({@link OutcomeStatus#SUBMITTED}) and the webhook receiver or the
 * outcome-event recorder writes the terminal outcome. The report joins the lines of a request by
 * its id; a request with no terminal line is lost.
 *
 * <p>Times are epoch milliseconds on the run's clock (on a scaled local run, the scaled clock), or
 * absent when the source does not know them.
 *
 * @param source          {@code worker}, {@code webhook} or {@code event}
 * @param scheduledMillis when the schedule says it arrives
 * @param sentMillis      when it left the worker (the SDK call or the submission began)
 * @param firstCallMillis when its first Bedrock call began (for the shaper: its admission)
 * @param lastCallMillis  when its last Bedrock call began, the one whose answer counts
 * @param finishedMillis  when its final outcome was known to the harness
 * @param reason          why it failed: the Bedrock error code, or the shaper's failure reason
 * @param httpStatus      the final HTTP status (200 on success)
 * @param bedrockCalls    Converse calls made for it (0 if it never reached Bedrock)
 * @param throttles       of those, how many Bedrock answered with 429
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OutcomeLine(
        String arm,
        String id,
        Integer index,
        Integer worker,
        String source,
        Long scheduledMillis,
        Long sentMillis,
        Long firstCallMillis,
        Long lastCallMillis,
        Long finishedMillis,
        OutcomeStatus status,
        String reason,
        Integer httpStatus,
        Integer bedrockCalls,
        Integer throttles,
        Long inputTokens,
        Long outputTokens,
        Long cacheReadTokens,
        Long cacheWriteTokens) {

    public static final String FROM_WORKER = "worker";
    public static final String FROM_WEBHOOK = "webhook";
    public static final String FROM_EVENT = "event";

    public OutcomeLine {
        if (arm == null || id == null || status == null) {
            throw new IllegalArgumentException("an outcome line needs arm, id and status");
        }
    }

    @JsonIgnore
    public boolean isTerminal() {
        return status.isTerminal();
    }

    public static Builder builder(ArmKind arm, String id) {
        return new Builder(arm.wireName(), id);
    }

    /** Builds a line; only arm, id and status are required. */
    public static final class Builder {
        private final String arm;
        private final String id;
        private Integer index;
        private Integer worker;
        private String source = FROM_WORKER;
        private Long scheduledMillis;
        private Long sentMillis;
        private Long firstCallMillis;
        private Long lastCallMillis;
        private Long finishedMillis;
        private OutcomeStatus status;
        private String reason;
        private Integer httpStatus;
        private Integer bedrockCalls;
        private Integer throttles;
        private Long inputTokens;
        private Long outputTokens;
        private Long cacheReadTokens;
        private Long cacheWriteTokens;

        private Builder(String arm, String id) {
            this.arm = arm;
            this.id = id;
        }

        public Builder index(int value) { this.index = value; return this; }
        public Builder worker(int value) { this.worker = value; return this; }
        public Builder source(String value) { this.source = value; return this; }
        public Builder scheduledMillis(long value) { this.scheduledMillis = value; return this; }
        public Builder sentMillis(long value) { this.sentMillis = value; return this; }
        public Builder firstCallMillis(Long value) { this.firstCallMillis = value; return this; }
        public Builder lastCallMillis(Long value) { this.lastCallMillis = value; return this; }
        public Builder finishedMillis(long value) { this.finishedMillis = value; return this; }
        public Builder status(OutcomeStatus value) { this.status = value; return this; }
        public Builder reason(String value) { this.reason = value; return this; }
        public Builder httpStatus(int value) { this.httpStatus = value; return this; }

        public Builder calls(int bedrockCalls, int throttles) {
            this.bedrockCalls = bedrockCalls;
            this.throttles = throttles;
            return this;
        }

        public Builder tokens(long input, long output, long cacheRead, long cacheWrite) {
            this.inputTokens = input;
            this.outputTokens = output;
            this.cacheReadTokens = cacheRead;
            this.cacheWriteTokens = cacheWrite;
            return this;
        }

        public OutcomeLine build() {
            return new OutcomeLine(arm, id, index, worker, source, scheduledMillis, sentMillis, firstCallMillis,
                    lastCallMillis, finishedMillis, status, reason, httpStatus, bedrockCalls, throttles, inputTokens,
                    outputTokens, cacheReadTokens, cacheWriteTokens);
        }
    }
}
