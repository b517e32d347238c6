package dev.trafficshaper.delivery;

/**
 * Where a finished request's webhook waits for its attempts: durable on AWS (an SQS queue with a
 * dead-letter queue, read by the Notifier), in memory in the local runtime. Each entry is the
 * request id; the body is rendered at each attempt from the stored record.
 */
public interface WebhookQueue {

    /** Queues the webhook's first attempt. */
    void enqueue(String requestId);
}
