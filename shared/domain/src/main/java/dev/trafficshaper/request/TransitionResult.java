package dev.trafficshaper.request;

import java.util.Objects;

/**
 * What a conditional transition did. {@code APPLIED} carries the new record; {@code REFUSED}
 * carries the record as it is now (the winner of a race, a terminal state, a passed deadline);
 * {@code UNKNOWN_REQUEST} means no live request has that id.
 */
public record TransitionResult(Outcome outcome, String requestId, RequestRecord record) {

    public enum Outcome { APPLIED, REFUSED, UNKNOWN_REQUEST }

    public TransitionResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(requestId, "requestId");
        if ((record == null) != (outcome == Outcome.UNKNOWN_REQUEST)) {
            throw new IllegalArgumentException("a record is required unless the request is unknown");
        }
    }

    public static TransitionResult applied(RequestRecord updated) {
        return new TransitionResult(Outcome.APPLIED, updated.requestId(), updated);
    }

    public static TransitionResult refused(RequestRecord current) {
        return new TransitionResult(Outcome.REFUSED, current.requestId(), current);
    }

    public static TransitionResult unknown(String requestId) {
        return new TransitionResult(Outcome.UNKNOWN_REQUEST, requestId, null);
    }

    public boolean applied() {
        return outcome == Outcome.APPLIED;
    }

    /** The state after the call: the new one when applied, the current one when refused. */
    public RequestState state() {
        if (record == null) {
            throw new IllegalStateException("request " + requestId + " is unknown");
        }
        return record.state();
    }
}
