package dev.trafficshaper.functions.aws;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.delivery.WebhookSender;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.threads.DaemonThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch of the delivery queue, as the event source mapping hands it over: one
 * {@link WebhookSender} attempt per message, its attempt number the message's receive count. A
 * message to try again is reported as a batch item failure after its visibility timeout is set to
 * the schedule's pause, so SQS holds it for that long (up to 12 h) with no Lambda waiting; one
 * whose last attempt failed is made visible at once, and its next receive moves it to the
 * dead-letter queue (the redrive policy's {@code maxReceiveCount} is the schedule's attempts).
 *
 * <p>The attempts of one batch run side by side, each bounded by the transport's timeouts, so a
 * batch takes as long as its slowest attempt, not the sum: a webhook batched with a slow or dead
 * receiver's waits for one attempt's timeout at most, and a slow receiver holds an invocation for
 * that long, then waits out its retry pause in the queue (the slow path), not in a sender.
 *
 * <p>An attempt that fails for a reason of the shaper's own (it throws: the table or the result
 * unreadable) is recorded on the request as a failed attempt ({@link WebhookSender#failedOutright})
 * and retried on the same schedule, so {@code GET} shows it and, after the last attempt, shows the
 * webhook dead-lettered, as for a failing receiver. An attempt still running when the invocation's
 * time is nearly up is reported as failed and comes back after the queue's visibility timeout.
 */
public final class SqsWebhookAttempts {

    /** Attempts of one batch at once: SQS hands over at most 10 messages per batch without a batching window. */
    public static final int PARALLEL_ATTEMPTS = 10;

    private static final Logger LOG = LoggerFactory.getLogger(SqsWebhookAttempts.class);

    private final SqsWebhookQueue queue;
    private final WebhookSender sender;
    private final LongSupplier clock;
    /** Threads start on the first batch, not at construction (nothing to carry through a snapshot). */
    private final ExecutorService attempts = Executors.newFixedThreadPool(PARALLEL_ATTEMPTS,
            DaemonThreads.factory("webhook-attempt"));

    public SqsWebhookAttempts(SqsWebhookQueue queue, WebhookSender sender, LongSupplier clock) {
        this.queue = queue;
        this.sender = sender;
        this.clock = clock;
    }

    /** As {@link #handle(JsonNode, long)} with no time limit of its own (the transport's timeouts bound each attempt). */
    public Map<String, Object> handle(JsonNode event) {
        return handle(event, Long.MAX_VALUE);
    }

    /**
     * {@code {"Records": [...]}} in, {@code {"batchItemFailures": [{"itemIdentifier": ...}]}} out;
     * waits at most {@code budgetMillis} for the batch's attempts.
     */
    public Map<String, Object> handle(JsonNode event, long budgetMillis) {
        List<JsonNode> messages = new ArrayList<>();
        List<Future<Boolean>> results = new ArrayList<>();
        for (JsonNode message : event.path("Records")) {
            messages.add(message);
            results.add(attempts.submit(() -> attempt(message)));
        }
        long deadline = budgetMillis == Long.MAX_VALUE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, budgetMillis));
        List<Map<String, String>> failures = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            String messageId = messages.get(i).path("messageId").asText();
            if (!done(messageId, results.get(i), deadline)) {
                failures.add(Map.of("itemIdentifier", messageId));
            }
        }
        return Map.of("batchItemFailures", failures);
    }

    private static boolean done(String messageId, Future<Boolean> result, long deadlineNanos) {
        try {
            return deadlineNanos == Long.MAX_VALUE ? result.get()
                    : result.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            result.cancel(true);
            LOG.error("webhook attempt for message {} still running at the invocation's time limit", messageId);
            return false;
        } catch (ExecutionException e) {
            LOG.error("webhook attempt for message {} failed: {}", messageId, e.getCause().toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
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
        WebhookSender.Attempt result;
        try {
            result = sender.attempt(requestId, attempt, clock.getAsLong());
        } catch (RuntimeException e) {
            LOG.error("webhook attempt {} of {} failed: {}", attempt, requestId, e.toString());
            result = sender.failedOutright(requestId, attempt, "webhook attempt failed: " + e, clock.getAsLong());
        }
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
