package dev.trafficshaper.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * A request as callers see it: the body of {@code GET /v1/requests/{id}}, of the webhook and of
 * the EventBridge event, so all three say the same thing. The Converse response is embedded as
 * Bedrock returned it.
 */
public final class RequestView {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestView() {
    }

    /** @param response the stored Converse response of a succeeded request, or null */
    public static String json(RequestRecord r, Payload response) {
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
        if (response != null) {
            try {
                node.set("response", JSON.readTree(response.bytes()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String iso(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }
}
