package dev.trafficshaper.request;

/** Why a request ended without a result, and the HTTP status the API reports for it. */
public enum FailureReason {
    /** Bedrock throttled it, or the shaper refused it because it could not meet its deadline. */
    THROTTLED(429),
    /** Bedrock or another dependency failed in a way that retrying did not fix. */
    DEPENDENCY_ERROR(503),
    /** The deadline passed before a result was produced. */
    DEADLINE_EXPIRED(504),
    /**
     * The call may have run: no answer in time, a connection broken mid-call, or Bedrock's own
     * model timeout or model error. Never sent again, since it may already have been generated and billed.
     */
    MODEL_TIMEOUT(504),
    /** The request itself was invalid (Bedrock ValidationException, bad input). */
    INVALID_REQUEST(400),
    /** The workflow holding the request was stopped or timed out. */
    ABORTED(503);

    private final int httpStatus;

    FailureReason(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
