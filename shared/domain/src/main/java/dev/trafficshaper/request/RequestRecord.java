package dev.trafficshaper.request;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadRef;
import java.util.Objects;

/**
 * Everything stored about one request: who sent it, where it is queued, what it is expected to
 * cost, where it stands, and where its payload and result are. Times are epoch millis; a time of
 * {@code 0} means "not yet". Nullable components are marked; the rest are required.
 *
 * @param shard           the queue shard holding (or that held) its queue item
 * @param fencingToken    the drainer lease token that admitted it, 0 before admission
 * @param failureReason   nullable; set by FAILED, EXPIRED and REJECTED
 * @param detail          nullable; a human-readable reason
 * @param actualUsage     nullable; what Bedrock reported
 * @param resultRef       nullable; where the result is stored
 * @param callbackUrl     nullable; the webhook to notify
 * @param expiresAtMillis when the record stops existing (a whole second: it is the TTL)
 * @param requeues        how often Bedrock throttled it and it went back to the queue (a stale
 *                        admission's return and a failure that proves Bedrock did nothing do not count)
 * @param requeueReason   nullable; why it last went back to the queue
 * @param bodyDigest      nullable; the canonical digest of the submitted body, so that a re-post of
 *                        its {@code requestId} with another body is told apart
 * @param delivery        nullable; where its webhook stands, once the request has ended with a
 *                        {@code callbackUrl}; or why its delivery could not be handed off
 * @param handedOffAtMillis when its delivery was handed off (the outcome event published and the
 *                        webhook, if any, queued), 0 while not yet: a terminal request with 0 here
 *                        still owes its delivery
 */
public record RequestRecord(
        String requestId,
        String tenant,
        String modelKey,
        Lane lane,
        RequestState state,
        int shard,
        long enqueuedAtMillis,
        long deadlineMillis,
        long updatedAtMillis,
        long admittedAtMillis,
        long startedAtMillis,
        long finishedAtMillis,
        long fencingToken,
        TokenUsage estimate,
        PayloadRef payloadRef,
        FailureReason failureReason,
        String detail,
        TokenUsage actualUsage,
        PayloadRef resultRef,
        String callbackUrl,
        long expiresAtMillis,
        int requeues,
        RequeueReason requeueReason,
        String bodyDigest,
        DeliveryState delivery,
        long handedOffAtMillis) {

    public RequestRecord {
        Identifiers.require("requestId", requestId);
        Identifiers.requireTenant(tenant);
        Identifiers.require("model", modelKey);
        Objects.requireNonNull(lane, "lane");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(estimate, "estimate");
        Objects.requireNonNull(payloadRef, "payloadRef");
        if (shard < 0) {
            throw new IllegalArgumentException("shard must not be negative");
        }
        if (expiresAtMillis % 1000 != 0) {
            throw new IllegalArgumentException("expiresAtMillis must be a whole second, was " + expiresAtMillis);
        }
        if (requeues < 0) {
            throw new IllegalArgumentException("requeues must not be negative");
        }
        if (handedOffAtMillis < 0) {
            throw new IllegalArgumentException("handedOffAtMillis must not be negative");
        }
    }

    /** Terminal, and its delivery (outcome event, webhook) handed off. */
    public boolean isHandedOff() {
        return handedOffAtMillis > 0;
    }

    public boolean isTerminal() {
        return state.isTerminal();
    }

    /** Whether Bedrock's answer is stored on this INVOKING request (it only awaits its terminal write). */
    public boolean isAnswered() {
        return state == RequestState.INVOKING && resultRef != null && actualUsage != null;
    }

    /** The status the HTTP API reports: 202 while pending, 200 on success, the failure's code otherwise. */
    public int httpStatus() {
        return httpStatus(state, failureReason);
    }

    /** The HTTP status for a request in {@code state} that ended for {@code reason} (nullable). */
    public static int httpStatus(RequestState state, FailureReason failureReason) {
        return switch (state) {
            case QUEUED, ADMITTED, INVOKING -> 202;
            case SUCCEEDED -> 200;
            case EXPIRED -> FailureReason.DEADLINE_EXPIRED.httpStatus();
            case FAILED, REJECTED -> failureReason == null ? 503 : failureReason.httpStatus();
        };
    }

    public boolean isLive(long nowMillis) {
        return expiresAtMillis > nowMillis;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().requestId(requestId).tenant(tenant).modelKey(modelKey).lane(lane).state(state)
                .shard(shard).enqueuedAtMillis(enqueuedAtMillis).deadlineMillis(deadlineMillis)
                .updatedAtMillis(updatedAtMillis).admittedAtMillis(admittedAtMillis).startedAtMillis(startedAtMillis)
                .finishedAtMillis(finishedAtMillis).fencingToken(fencingToken).estimate(estimate)
                .payloadRef(payloadRef).failureReason(failureReason).detail(detail).actualUsage(actualUsage)
                .resultRef(resultRef).callbackUrl(callbackUrl).expiresAtMillis(expiresAtMillis).requeues(requeues)
                .requeueReason(requeueReason).bodyDigest(bodyDigest).delivery(delivery)
                .handedOffAtMillis(handedOffAtMillis);
    }

    /** Rounds a time up to the next whole second, the resolution of DynamoDB's TTL attribute. */
    public static long ceilToSecond(long millis) {
        return Math.floorDiv(millis + 999, 1000) * 1000;
    }

    public static final class Builder {
        private String requestId;
        private String tenant;
        private String modelKey;
        private Lane lane = Lane.INTERACTIVE;
        private RequestState state = RequestState.QUEUED;
        private int shard;
        private long enqueuedAtMillis;
        private long deadlineMillis;
        private long updatedAtMillis;
        private long admittedAtMillis;
        private long startedAtMillis;
        private long finishedAtMillis;
        private long fencingToken;
        private TokenUsage estimate;
        private PayloadRef payloadRef;
        private FailureReason failureReason;
        private String detail;
        private TokenUsage actualUsage;
        private PayloadRef resultRef;
        private String callbackUrl;
        private long expiresAtMillis;
        private int requeues;
        private RequeueReason requeueReason;
        private String bodyDigest;
        private DeliveryState delivery;
        private long handedOffAtMillis;

        private Builder() {
        }

        public Builder requestId(String value) { this.requestId = value; return this; }
        public Builder tenant(String value) { this.tenant = value; return this; }
        public Builder modelKey(String value) { this.modelKey = value; return this; }
        public Builder lane(Lane value) { this.lane = value; return this; }
        public Builder state(RequestState value) { this.state = value; return this; }
        public Builder shard(int value) { this.shard = value; return this; }
        public Builder enqueuedAtMillis(long value) { this.enqueuedAtMillis = value; return this; }
        public Builder deadlineMillis(long value) { this.deadlineMillis = value; return this; }
        public Builder updatedAtMillis(long value) { this.updatedAtMillis = value; return this; }
        public Builder admittedAtMillis(long value) { this.admittedAtMillis = value; return this; }
        public Builder startedAtMillis(long value) { this.startedAtMillis = value; return this; }
        public Builder finishedAtMillis(long value) { this.finishedAtMillis = value; return this; }
        public Builder fencingToken(long value) { this.fencingToken = value; return this; }
        public Builder estimate(TokenUsage value) { this.estimate = value; return this; }
        public Builder payloadRef(PayloadRef value) { this.payloadRef = value; return this; }
        public Builder failureReason(FailureReason value) { this.failureReason = value; return this; }
        public Builder detail(String value) { this.detail = value; return this; }
        public Builder actualUsage(TokenUsage value) { this.actualUsage = value; return this; }
        public Builder resultRef(PayloadRef value) { this.resultRef = value; return this; }
        public Builder callbackUrl(String value) { this.callbackUrl = value; return this; }
        public Builder expiresAtMillis(long value) { this.expiresAtMillis = value; return this; }
        public Builder requeues(int value) { this.requeues = value; return this; }
        public Builder requeueReason(RequeueReason value) { this.requeueReason = value; return this; }
        public Builder bodyDigest(String value) { this.bodyDigest = value; return this; }
        public Builder delivery(DeliveryState value) { this.delivery = value; return this; }
        public Builder handedOffAtMillis(long value) { this.handedOffAtMillis = value; return this; }

        public RequestRecord build() {
            return new RequestRecord(requestId, tenant, modelKey, lane, state, shard, enqueuedAtMillis,
                    deadlineMillis, updatedAtMillis, admittedAtMillis, startedAtMillis, finishedAtMillis,
                    fencingToken, estimate, payloadRef, failureReason, detail, actualUsage, resultRef, callbackUrl,
                    expiresAtMillis, requeues, requeueReason, bodyDigest, delivery,
                    handedOffAtMillis);
        }
    }
}
