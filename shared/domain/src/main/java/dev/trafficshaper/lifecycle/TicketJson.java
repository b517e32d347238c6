package dev.trafficshaper.lifecycle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;

/**
 * A {@link Ticket} as the JSON object the workflow carries from the submit step to the Budget
 * Manager. Field names are part of the state machine's contract; keep them stable.
 */
public final class TicketJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TicketJson() {
    }

    public static ObjectNode write(Ticket t) {
        ObjectNode node = JSON.createObjectNode();
        node.put("requestId", t.requestId());
        node.put("tenant", t.tenant());
        node.put("model", t.modelKey());
        node.put("priority", t.lane().wireName());
        node.put("submittedAt", t.submittedAtMillis());
        node.put("deadlineAt", t.deadlineMillis());
        ObjectNode estimate = node.putObject("estimate");
        estimate.put("inputTokens", t.estimate().inputTokens());
        estimate.put("outputTokens", t.estimate().outputTokens());
        ObjectNode ref = node.putObject("payload");
        PayloadRef p = t.payloadRef();
        ref.put("location", p.location().name());
        ref.put("kind", p.kind().wireName());
        ref.put("sha256", p.sha256());
        ref.put("sizeBytes", p.sizeBytes());
        ref.put("expiresAt", p.expiresAtMillis());
        if (t.callbackUrl() != null) {
            node.put("callbackUrl", t.callbackUrl());
        }
        if (t.bodyDigest() != null) {
            node.put("bodyDigest", t.bodyDigest());
        }
        return node;
    }

    /** @throws IllegalArgumentException naming the field that is missing or wrong */
    public static Ticket read(JsonNode node) {
        String requestId = text(node, "requestId");
        JsonNode estimate = required(node, "estimate");
        JsonNode ref = required(node, "payload");
        PayloadRef payload = new PayloadRef(PayloadRef.Location.valueOf(text(ref, "location")), requestId,
                PayloadKind.fromWireName(text(ref, "kind")), text(ref, "sha256"), number(ref, "sizeBytes"),
                number(ref, "expiresAt"));
        JsonNode callback = node.get("callbackUrl");
        JsonNode digest = node.get("bodyDigest");
        return new Ticket(requestId, text(node, "tenant"), text(node, "model"),
                Lane.fromWireName(text(node, "priority")), number(node, "submittedAt"), number(node, "deadlineAt"),
                TokenUsage.of(number(estimate, "inputTokens"), number(estimate, "outputTokens")), payload,
                callback == null || callback.isNull() ? null : callback.asText(),
                digest == null || digest.isNull() ? null : digest.asText());
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("request ticket: " + field + " is required");
        }
        return value;
    }

    private static String text(JsonNode node, String field) {
        return required(node, field).asText();
    }

    private static long number(JsonNode node, String field) {
        JsonNode value = required(node, field);
        if (!value.canConvertToLong()) {
            throw new IllegalArgumentException("request ticket: " + field + " must be a number");
        }
        return value.asLong();
    }
}
