package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;

/**
 * Bedrock calls the drainer runs itself ({@link DispatchMode#INLINE}): each one is the Bedrock
 * Processor's whole job ({@link InvocationService#processToEnd}) on a thread of the drainer's
 * invocation, so the claim ADMITTED → INVOKING, the write-then-signal order and the sweeper's rules
 * are exactly those of an asynchronously invoked processor. A call is fenced by its claim, not by
 * the drainer's lease: a drainer that hands off, or loses its lease, lets the calls it started
 * finish.
 */
public interface InlineCalls {

    /** Told once when a call ends, on any thread. */
    @FunctionalInterface
    interface CallEnded {
        /**
         * @param record the request as the call left it (terminal, or back in the queue); null when
         *               the call does not know (another delivery holds the claim, the call failed
         *               before it ended): the drainer then reads the request as it reads an
         *               asynchronous dispatch
         * @param reachedByMillis the latest the call can have reached Bedrock
         *               ({@link InvocationService.Ended#reachedByMillis}), or
         *               {@link InvocationService.Ended#NOT_CALLED}
         */
        void ended(String requestId, RequestRecord record, long reachedByMillis);
    }

    /**
     * Starts the call at once unless every slot is busy. Returns whether it started; one that did
     * not is the caller's to dispatch the asynchronous way.
     */
    boolean tryStart(String modelKey, String requestId, CallEnded onEnd);

    /**
     * Returns once every call started for {@code modelKey} so far has ended; a Lambda function
     * calls it before it returns, since a frozen execution environment finishes nothing.
     */
    void awaitCalls(String modelKey) throws InterruptedException;
}
