package dev.trafficshaper.lifecycle;

/**
 * Hands an admitted request to the Bedrock Processor without waiting for it (an asynchronous
 * Lambda invoke on AWS, a worker thread locally). Delivery may repeat; the processor's
 * ADMITTED → INVOKING claim makes a repeat do nothing.
 */
public interface InvocationDispatch {

    void dispatch(String modelKey, String requestId);

    /**
     * Returns once every dispatch handed over so far has been made or given up; a Lambda function
     * calls it before it returns, since a frozen execution environment sends nothing. Dispatches
     * made inline are done when {@link #dispatch} returns.
     */
    default void flush() throws InterruptedException {
    }
}
