package dev.trafficshaper.bedrock;

import dev.trafficshaper.request.FailureReason;

/** Failures that repeat on every attempt, with the reason the API reports for each. */
public enum RejectionKind {
    /** The request body is malformed or outside the model's limits: the caller must fix it. */
    VALIDATION(FailureReason.INVALID_REQUEST),
    /**
     * A hard quota boundary, not a momentary rate limit. Retrying in a loop cannot pass it, but
     * the caller may resubmit later, which is what a 429 tells them.
     */
    SERVICE_QUOTA_EXCEEDED(FailureReason.THROTTLED),
    /** The shaper's own role lacks permission: a deployment fault, not the caller's. */
    ACCESS_DENIED(FailureReason.DEPENDENCY_ERROR),
    /**
     * The configured model id does not exist in the region. Callers name models by catalog key,
     * which is validated on submission, so this too is a deployment fault.
     */
    RESOURCE_NOT_FOUND(FailureReason.DEPENDENCY_ERROR),
    /** Any other 4xx; without knowing whose fault it is, it is reported as a dependency error. */
    OTHER_CLIENT_ERROR(FailureReason.DEPENDENCY_ERROR);

    private final FailureReason failureReason;

    RejectionKind(FailureReason failureReason) {
        this.failureReason = failureReason;
    }

    public FailureReason failureReason() {
        return failureReason;
    }
}
