package dev.trafficshaper.functions.aws;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.delivery.WebhookSender;
import dev.trafficshaper.functions.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch of the delivery queue, as the event source mapping hands it over: one
 * {@link WebhookSender} attempt per message, its attempt number the message's receive count. A
 * message to try again is reported as a batch item failure after its visibility timeout is set to
 * the schedule's pause, so SQS holds it for that long (up to 12 h) with no Lambda waiting; one
 * whose last attempt failed is made visible at once, and its next receive moves it to the
 * dead-letter queue (the redrive policy's {@code maxReceiveCount} is the schedule's attempts). A
 * message that fails for another reason (the table unreachable) is reported too and comes back
 * after the queue's visibility timeout.
 */
public final class SqsWebhookAttempts {

    private static final Logger LOG = LoggerFactory.getLogger(SqsWebhookAttempts.class);

    private final SqsWebhookQueue queue;
    private final WebhookSender sender;
    private final LongSupplier clock;

    public SqsWebhookAttempts(SqsWebhookQueue queue, WebhookSender sender, LongSupplier clock) {
        this.queue = queue;
        this.sender = sender;
        this.clock = clock;
    }

    /** {@code {"Records": [...]}} in, {@code {"batchItemFailures": [{"itemIdentifier": ...}]}} out. */
    public Map<String, Object> handle(JsonNode event) {
        List<Map<String, String>> failures = new ArrayList<>();
        for (JsonNode message : event.path("Records")) {
            String messageId = message.path("messageId").asText();
            try {
                if (!attempt(message)) {
                    failures.add(Map.of("itemIdentifier", messageId));
                }
            } catch (RuntimeException e) {
                LOG.error("webhook attempt for message {} failed: {}", messageId, e.toString());
                failures.add(Map.of("itemIdentifier", messageId));
            }
        }
        return Map.of("batchItemFailures", failures);
    }

    /** True when the message is done with (delivered, or nothing to send). */
    private boolean attempt(JsonNode message) {
        String requestId;
        try {
            requestId = Json.text(Json.MAPPER.readTree(message.path("body").asText()), "requestId");
        } catch (JsonProcessingException e) {
            LOG.error("delivery message {} is not JSON; dropped", message.path("messageId").asText());
            return true;
        }
        int attempt = Math.max(1, message.path("attributes").path("ApproximateReceiveCount").asInt(1));
        WebhookSender.Attempt result = sender.attempt(requestId, attempt, clock.getAsLong());
        switch (result.next()) {
            case DONE -> {
                return true;
            }
            case RETRY -> hideFor(message, (int) ((result.retryAfterMillis() + 999) / 1000));
            case DEAD_LETTER -> {
                LOG.warn("webhook not delivered after {} attempts, dead-lettered: {} ({})", attempt, requestId,
                        result.state().lastError());
                hideFor(message, 0);
            }
        }
        return false;
    }

    private void hideFor(JsonNode message, int seconds) {
        queue.client().changeMessageVisibility(b -> b.queueUrl(queue.queueUrl())
                .receiptHandle(message.path("receiptHandle").asText()).visibilityTimeout(seconds));
    }
}
