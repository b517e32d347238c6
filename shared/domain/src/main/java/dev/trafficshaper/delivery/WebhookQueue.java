package dev.trafficshaper.delivery;

import dev.trafficshaper.request.RequestRecord;

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
     * request. The attempt still renders the body from the stored record. A queue that does not
     * route by receiver needs only the id: by default the receiver is not kept.
     */
    default void enqueue(String requestId, String callbackUrl) {
        enqueue(requestId);
    }

    /**
     * Queues the first attempt of {@code finished}'s webhook. A queue whose senders serve every
     * tenant (SQS on AWS) keys each entry by {@link RequestRecord#tenant()}, so that one tenant's
     * slow or failing receiver cannot hold back another tenant's webhooks; by default the entry is
     * routed by its receiver, as {@link #enqueue(String, String)}.
     */
    default void enqueue(RequestRecord finished) {
        enqueue(finished.requestId(), finished.callbackUrl());
    }
}
