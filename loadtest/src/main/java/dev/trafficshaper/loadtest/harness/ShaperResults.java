package dev.trafficshaper.loadtest.harness;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reads a shaper result — the webhook's body, or the {@code detail} of the outcome event; the two
 * are the same document as {@code GET /v1/requests/{id}} — into the request's terminal outcome line.
 *
 * <p>Bedrock calls and throttles come from the result: an admitted request made one call plus one
 * per requeue, and a requeue follows a throttle or a transient error (the result does not say
 * which, so both count as throttles here; a local run also shows what the Bedrock simulator
 * counted). The first-call time is the admission the result reports, which after a requeue is the
 * last one.
 */
public final class ShaperResults {

    private ShaperResults() {
    }

    /**
     * The outcome line for a result body; empty when it is not about a load-test request or is not
     * terminal yet.
     *
     * @param finishedMillis when the harness learned the outcome; null to use the result's {@code finishedAt}
     */
    public static Optional<OutcomeLine> line(JsonNode result, Long finishedMillis, String source) {
        String requestId = result.path("requestId").asText(null);
        Optional<RequestIds.Parts> parts = RequestIds.parse(requestId);
        if (parts.isEmpty() || parts.get().arm() != ArmKind.SHAPER) {
            return Optional.empty();
        }
        OutcomeStatus status = OutcomeStatus.fromShaperState(result.path("status").asText(null));
        if (!status.isTerminal()) {
            return Optional.empty();
        }
        Long admitted = millis(result.path("admittedAt"));
        Long finished = finishedMillis != null ? finishedMillis : millis(result.path("finishedAt"));
        int requeues = result.path("requeues").asInt(0);
        String reason = result.path("reason").asText(null);
        int calls = status == OutcomeStatus.EXPIRED ? requeues : admitted != null ? requeues + 1 : 0;
        int throttles = requeues + (status == OutcomeStatus.FAILED && "THROTTLED".equals(reason) ? 1 : 0);
        OutcomeLine.Builder line = OutcomeLine.builder(ArmKind.SHAPER, requestId)
                .index(parts.get().index())
                .source(source)
                .status(status)
                .reason(reason)
                .httpStatus(result.path("httpStatus").asInt(status == OutcomeStatus.SUCCEEDED ? 200 : 503))
                .firstCallMillis(admitted)
                .lastCallMillis(admitted)
                .calls(calls, Math.min(throttles, calls));
        if (finished != null) {
            line.finishedMillis(finished);
        }
        JsonNode usage = result.path("usage");
        if (usage.isObject()) {
            line.tokens(usage.path("inputTokens").asLong(0), usage.path("outputTokens").asLong(0),
                    usage.path("cacheReadTokens").asLong(0), usage.path("cacheWriteTokens").asLong(0));
        }
        return Optional.of(line.build());
    }

    private static Long millis(JsonNode iso) {
        if (!iso.isTextual()) {
            return null;
        }
        try {
            return Instant.parse(iso.asText()).toEpochMilli();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
