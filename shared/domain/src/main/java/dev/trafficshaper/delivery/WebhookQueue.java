package dev.trafficshaper.delivery;

/**
 * Where a finished request's webhook waits for its attempts: durable on AWS (an SQS queue with a
 * dead-letter queue, read by the Notifier), in memory in the local runtime. Each entry is the
 * request id; the body is rendered at each attempt from the stored record.
 */
public interface WebhookQueue {

    /** Queues the webhook's first attempt. */
    void enqueue(String requestId);

    /**
     * Queues the webhook's first attempt, naming its receiver for a queue that routes by receiver
     * (the local runtime keeps one lane per receiver), so routing an attempt needs no read of the
     * request. The attempt still renders the body from the stored record. A queue with one lane
     * for every receiver (SQS on AWS) needs only the id: by default the receiver is not kept.
     */
    default void enqueue(String requestId, String callbackUrl) {
        enqueue(requestId);
    }
}
