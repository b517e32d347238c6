package dev.trafficshaper.functions.aws;

import dev.trafficshaper.delivery.WebhookQueue;
import dev.trafficshaper.functions.Json;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The delivery queue: one message {@code {"requestId": ...}} per webhook. The Notifier reads it
 * through an event source mapping ({@link SqsWebhookAttempts}); the queue's redrive policy moves a
 * message to the dead-letter queue after the schedule's last attempt.
 */
public final class SqsWebhookQueue implements WebhookQueue {

    private final SqsClient sqs;
    private final String queueUrl;

    public SqsWebhookQueue(SqsClient sqs, String queueUrl) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
    }

    @Override
    public void enqueue(String requestId) {
        sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(Json.MAPPER.createObjectNode().put("requestId", requestId).toString()));
    }

    public SqsClient client() {
        return sqs;
    }

    public String queueUrl() {
        return queueUrl;
    }
}
