package dev.trafficshaper.request;

/**
 * Why a request went back to the queue, for the drainer that admitted it: each asks a different
 * reaction of its pacer. Stored on the request, never parsed from a message.
 */
public enum RequeueReason {

    /** Bedrock answered 429: the quota is tighter than the pacer believed, so its target drops. */
    THROTTLED,

    /**
     * An error that proves Bedrock did nothing (a 5xx or model-not-ready answered at once, a
     * connection never made): nothing was learnt about the quota; the reservation is released and
     * the drainer holds the request back with backoff. Not counted against the requeue budget: only
     * the deadline bounds it.
     */
    TRANSIENT,

    /**
     * The Bedrock Processor picked the admission up too late to start it under the pacer's charge:
     * Bedrock was not called, the reservation is released and the pacer admits it again, charging
     * the moment the call will really start. Not counted against the requeue budget.
     */
    STALE_ADMISSION;

    /** Whether this requeue spends one of the request's allowed requeues. */
    public boolean countsAgainstBudget() {
        return this == THROTTLED;
    }
}
