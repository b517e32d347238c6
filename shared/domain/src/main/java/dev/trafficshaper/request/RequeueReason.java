package dev.trafficshaper.request;

/**
 * Why a request went back to the queue, for the drainer that admitted it: each asks a different
 * reaction of its pacer. Stored on the request, never parsed from a message.
 */
public enum RequeueReason {

    /**
     * Bedrock answered 429: the quota is tighter than the pacer believed (or a headroom probe found
     * its edge), so its target drops. Counted in the request's requeues, but never a reason to give
     * the request up: only its deadline bounds how often it goes back.
     */
    THROTTLED,

    /**
     * An error that proves Bedrock did nothing (a 5xx or model-not-ready answered at once, a
     * connection never made): nothing was learnt about the quota; the reservation is released and
     * the drainer holds the request back with backoff. Not counted: only the deadline bounds it.
     */
    TRANSIENT,

    /**
     * The Bedrock Processor picked the admission up too late to start it under the pacer's charge:
     * Bedrock was not called, the reservation is released and the pacer admits it again, charging
     * the moment the call will really start. Not counted.
     */
    STALE_ADMISSION;

    /** Whether this requeue adds one to the request's {@code requeues} count (a throttle only). */
    public boolean isCounted() {
        return this == THROTTLED;
    }
}
