package dev.trafficshaper.request;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadRef;
import java.time.Duration;
import java.util.Objects;

/**
 * A validated submission, ready to enqueue. The payload is already stored; only its reference
 * travels with the request.
 *
 * @param taskToken       nullable; the Step Functions task token that resumes its workflow, stored
 *                        beside the record (not in it) when enqueued
 * @param bodyDigest      nullable; the submitted body's canonical digest
 * @param retentionMillis how long the record outlives its deadline (the status stays readable)
 */
public record NewRequest(
        String requestId,
        String tenant,
        String modelKey,
        Lane lane,
        long deadlineMillis,
        TokenUsage estimate,
        PayloadRef payloadRef,
        String taskToken,
        String callbackUrl,
        long retentionMillis,
        String bodyDigest) {

    public static final long DEFAULT_RETENTION_MILLIS = Duration.ofDays(3).toMillis();

    public NewRequest {
        Identifiers.require("requestId", requestId);
        Identifiers.requireTenant(tenant);
        Identifiers.require("model", modelKey);
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(estimate, "estimate");
        Objects.requireNonNull(payloadRef, "payloadRef");
        if (deadlineMillis <= 0) {
            throw new IllegalArgumentException("deadlineMillis must be positive");
        }
        if (retentionMillis < 0) {
            throw new IllegalArgumentException("retentionMillis must not be negative");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The QUEUED record this request becomes when enqueued on {@code shard} at {@code nowMillis}. */
    public RequestRecord toQueuedRecord(int shard, long nowMillis) {
        long expiresAt = RequestRecord.ceilToSecond(Math.max(deadlineMillis, nowMillis) + retentionMillis);
        return RequestRecord.builder().requestId(requestId).tenant(tenant).modelKey(modelKey).lane(lane)
                .state(RequestState.QUEUED).shard(shard).enqueuedAtMillis(nowMillis).deadlineMillis(deadlineMillis)
                .updatedAtMillis(nowMillis).estimate(estimate).payloadRef(payloadRef)
                .callbackUrl(callbackUrl).expiresAtMillis(expiresAt).bodyDigest(bodyDigest).build();
    }

    public static final class Builder {
        private String requestId;
        private String tenant;
        private String modelKey;
        private Lane lane = Lane.INTERACTIVE;
        private long deadlineMillis;
        private TokenUsage estimate;
        private PayloadRef payloadRef;
        private String taskToken;
        private String callbackUrl;
        private long retentionMillis = DEFAULT_RETENTION_MILLIS;
        private String bodyDigest;

        private Builder() {
        }

        public Builder requestId(String value) { this.requestId = value; return this; }
        public Builder tenant(String value) { this.tenant = value; return this; }
        public Builder modelKey(String value) { this.modelKey = value; return this; }
        public Builder lane(Lane value) { this.lane = value; return this; }
        public Builder deadlineMillis(long value) { this.deadlineMillis = value; return this; }
        public Builder estimate(TokenUsage value) { this.estimate = value; return this; }
        public Builder payloadRef(PayloadRef value) { this.payloadRef = value; return this; }
        public Builder taskToken(String value) { this.taskToken = value; return this; }
        public Builder callbackUrl(String value) { this.callbackUrl = value; return this; }
        public Builder retentionMillis(long value) { this.retentionMillis = value; return this; }
        public Builder bodyDigest(String value) { this.bodyDigest = value; return this; }

        public NewRequest build() {
            return new NewRequest(requestId, tenant, modelKey, lane, deadlineMillis, estimate, payloadRef,
                    taskToken, callbackUrl, retentionMillis, bodyDigest);
        }
    }
}
