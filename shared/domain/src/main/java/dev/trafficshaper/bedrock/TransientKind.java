package dev.trafficshaper.bedrock;

/**
 * Failures worth retrying that are not throttles, so they must not slow the pacer down. Each kind
 * says whether it proves Bedrock did nothing ({@link #provesNothingRan()}): only those go back to
 * the queue. The others leave open that the generation ran and was billed, so sending the request
 * again could run it twice; they end it instead (see docs/lifecycle.md, "Sent once").
 */
public enum TransientKind {
    /** The model is still loading; Bedrock answers 429, yet the quota was not the cause. */
    MODEL_NOT_READY(true),
    /** Bedrock answered 503 at once: it did not take the request. */
    SERVICE_UNAVAILABLE(true),
    /** Bedrock answered 500 without a generation. */
    INTERNAL_SERVER(true),
    /** Bedrock gave up on a slow generation (408): it ran, and may have been billed. */
    MODEL_TIMEOUT(false),
    /** The model itself failed while producing an answer (424): it ran. */
    MODEL_ERROR(false),
    /** A 5xx with an error code this table does not know: Bedrock answered with an error, not a generation. */
    OTHER_SERVER_ERROR(true),
    /** No answer arrived within the call timeout: the generation may be running still. */
    CLIENT_TIMEOUT(false),
    /** The connection could not be made (refused, unknown host, no route): nothing was sent. */
    CONNECTION_REFUSED(true),
    /** The connection broke after the request was sent, before the answer was read: it may have run. */
    CONNECTION_BROKEN(false);

    private final boolean provesNothingRan;

    TransientKind(boolean provesNothingRan) {
        this.provesNothingRan = provesNothingRan;
    }

    /** Whether this failure proves Bedrock generated nothing, so the request may be sent again. */
    public boolean provesNothingRan() {
        return provesNothingRan;
    }
}
