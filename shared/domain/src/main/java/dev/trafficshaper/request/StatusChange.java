package dev.trafficshaper.request;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.PayloadRef;

/**
 * The fields one event writes onto a request, independent of what the request held before. A
 * null field is left unchanged. The in-memory store applies it to a record; the DynamoDB store
 * renders it as the SET clause of one conditional update.
 */
public record StatusChange(
        RequestState state,
        long updatedAtMillis,
        FailureReason failureReason,
        String detail,
        Long admittedAtMillis,
        Long fencingToken,
        Long startedAtMillis,
        Long finishedAtMillis,
        TokenUsage actualUsage,
        PayloadRef resultRef,
        Integer requeues,
        RequeueReason requeueReason) {

    public RequestRecord applyTo(RequestRecord current) {
        RequestRecord.Builder next = current.toBuilder().state(state).updatedAtMillis(updatedAtMillis);
        if (failureReason != null) {
            next.failureReason(failureReason);
        }
        if (detail != null) {
            next.detail(detail);
        }
        if (admittedAtMillis != null) {
            next.admittedAtMillis(admittedAtMillis);
        }
        if (fencingToken != null) {
            next.fencingToken(fencingToken);
        }
        if (startedAtMillis != null) {
            next.startedAtMillis(startedAtMillis);
        }
        if (finishedAtMillis != null) {
            next.finishedAtMillis(finishedAtMillis);
        }
        if (actualUsage != null) {
            next.actualUsage(actualUsage);
        }
        if (resultRef != null) {
            next.resultRef(resultRef);
        }
        if (requeues != null) {
            next.requeues(requeues);
        }
        if (requeueReason != null) {
            next.requeueReason(requeueReason);
        }
        return next.build();
    }
}
