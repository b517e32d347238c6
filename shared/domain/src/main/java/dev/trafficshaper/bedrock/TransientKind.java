package dev.trafficshaper.bedrock;

/** Failures worth retrying that are not throttles, so they must not slow the pacer down. */
public enum TransientKind {
    /** The model is still loading; Bedrock answers 429, yet the quota was not the cause. */
    MODEL_NOT_READY,
    SERVICE_UNAVAILABLE,
    INTERNAL_SERVER,
    /** Bedrock gave up on a slow generation (408). */
    MODEL_TIMEOUT,
    /** The model itself failed to produce an answer (424). */
    MODEL_ERROR,
    /** A 408, 424 or 5xx with an error code this table does not know. */
    OTHER_SERVER_ERROR,
    /** No answer arrived within the call timeout. */
    CLIENT_TIMEOUT,
    /** The connection could not be made or broke before an answer was read. */
    CONNECTION
}
