package dev.trafficshaper.functions.aws;

import dev.trafficshaper.delivery.WebhookQueue;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.request.RequestRecord;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The delivery queue: one message {@code {"requestId": ...}} per webhook. The Notifier reads it
 * through an event source mapping ({@link SqsWebhookAttempts}); the queue's redrive policy moves a
 * message to the dead-letter queue after the schedule's last attempt.
 *
 * <p>Each message carries its request's tenant as its {@code MessageGroupId} ({@link #messageGroup}).
 * On a standard queue that makes it an SQS fair queue: a tenant whose messages take a
 * disproportionate share of the Notifier's time or of the messages in flight (a slow or dead
 * receiver, whose attempts wait out their timeouts and then their retry pauses in flight) is
 * served after the quiet tenants, so its backlog does not raise their webhooks' time in the queue.
 * The group orders nothing on a standard queue, and no message waits for another.
 */
public final class SqsWebhookQueue implements WebhookQueue {

    /** SQS's longest {@code MessageGroupId}. */
    static final int MAX_GROUP_LENGTH = 128;

    private final SqsClient sqs;
    private final String queueUrl;

    public SqsWebhookQueue(SqsClient sqs, String queueUrl) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
    }

    /** A message with no tenant: SQS counts each such message as a tenant of its own. */
    @Override
    public void enqueue(String requestId) {
        sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(body(requestId)));
    }

    @Override
    public void enqueue(RequestRecord finished) {
        sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(body(finished.requestId()))
                .messageGroupId(messageGroup(finished.tenant())));
    }

    /**
     * The message group of a tenant's webhooks: the tenant (the caller's IAM ARN) as it is when SQS
     * takes it (at most 128 printable ASCII characters, no space), else {@code sha256:} and the hex
     * SHA-256 of it (a long assumed-role session ARN), so one tenant is always one group.
     */
    static String messageGroup(String tenant) {
        if (tenant.length() <= MAX_GROUP_LENGTH && tenant.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            return tenant;
        }
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(tenant.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }

    private static String body(String requestId) {
        return Json.MAPPER.createObjectNode().put("requestId", requestId).toString();
    }

    public SqsClient client() {
        return sqs;
    }

    public String queueUrl() {
        return queueUrl;
    }
}
