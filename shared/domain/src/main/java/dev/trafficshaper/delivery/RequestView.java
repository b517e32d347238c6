package dev.trafficshaper.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * A request as callers see it: the body of {@code GET /v1/requests/{id}} and of the webhook, so
 * both say the same thing; the EventBridge event ({@link OutcomeEvent}) carries the same summary
 * without the response. The Converse response is embedded as Bedrock returned it; the webhook's
 * progress ({@code delivery}) appears once the request has ended with a {@code callbackUrl}.
 */
public final class RequestView {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestView() {
    }

    /** @param response the stored Converse response of a succeeded request, or null */
    public static String json(RequestRecord r, Payload response) {
        ObjectNode node = summary(r);
        if (r.delivery() != null) {
            DeliveryState d = r.delivery();
            ObjectNode delivery = node.putObject("delivery");
            delivery.put("attempts", d.attempts());
            delivery.put("lastStatus", d.lastStatus());
            if (d.lastError() != null) {
                delivery.put("lastError", d.lastError());
            }
            if (d.lastAttemptAtMillis() > 0) {
                delivery.put("lastAttemptAt", iso(d.lastAttemptAtMillis()));
            }
            if (d.nextAttemptAtMillis() > 0) {
                delivery.put("nextAttemptAt", iso(d.nextAttemptAtMillis()));
            }
            delivery.put("delivered", d.delivered());
            delivery.put("deadLettered", d.deadLettered());
        }
        if (response != null) {
            try {
                node.set("response", JSON.readTree(response.bytes()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return write(node);
    }

    /**
     * What every view says about a request except its response and its delivery: state, reason,
     * HTTP status, model, usage and timings. Small whatever the response's size.
     */
    static ObjectNode summary(RequestRecord r) {
        ObjectNode node = JSON.createObjectNode();
        node.put("requestId", r.requestId());
        node.put("model", r.modelKey());
        node.put("status", r.state().name());
        node.put("priority", r.lane().wireName());
        node.put("httpStatus", r.httpStatus());
        if (r.failureReason() != null) {
            node.put("reason", r.failureReason().name());
        }
        if (r.detail() != null && r.state() != RequestState.SUCCEEDED) {
            // a success after a requeue keeps the throttle's note on the record; "requeues" tells it
            node.put("detail", r.detail());
        }
        node.put("submittedAt", iso(r.enqueuedAtMillis()));
        node.put("deadlineAt", iso(r.deadlineMillis()));
        if (r.admittedAtMillis() > 0) {
            node.put("admittedAt", iso(r.admittedAtMillis()));
            node.put("waitMillis", r.admittedAtMillis() - r.enqueuedAtMillis());
        }
        if (r.finishedAtMillis() > 0) {
            node.put("finishedAt", iso(r.finishedAtMillis()));
        }
        node.put("requeues", r.requeues());
        if (r.actualUsage() != null) {
            TokenUsage u = r.actualUsage();
            ObjectNode usage = node.putObject("usage");
            usage.put("inputTokens", u.inputTokens());
            usage.put("outputTokens", u.outputTokens());
            usage.put("cacheReadTokens", u.cacheReadTokens());
            usage.put("cacheWriteTokens", u.cacheWriteTokens());
        }
        return node;
    }

    static String write(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String iso(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }
}
