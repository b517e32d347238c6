package dev.trafficshaper.functions.finalize;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
import dev.trafficshaper.lifecycle.Ticket;
import dev.trafficshaper.lifecycle.TicketJson;
import dev.trafficshaper.request.RequestRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.trafficshaper.functions.Logs;

/**
 * The Finalize state: {@code {executionArn, request: <ticket + error>, error: {Error, Cause}}}.
 * Records an honest terminal outcome unless one is already written, hands off its delivery unless
 * that is done, and returns the outcome (the state machine's Choice reads its {@code status}).
 */
public final class FinalizerHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

    private static final Logger LOG = LoggerFactory.getLogger(FinalizerHandler.class);

    private final Shaper shaper;
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public FinalizerHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public FinalizerHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    private static Optional<Ticket> ticket(JsonNode request) {
        try {
            return Optional.of(TicketJson.read(request));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: the finalizer and its stores. */
    public static void prime(Shaper shaper) {
        shaper.finalizer();
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
        JsonNode input = Json.tree(event);
        JsonNode request = input.get("request");
        String requestId = Json.text(request, "requestId");
        JsonNode error = input.path("error");
        String errorName = error.path("Error").asText("States.Runtime");
        String cause = error.path("Cause").asText("");
        return Logs.with(context, "requestId", requestId, () -> {
            long now = System.currentTimeMillis();
            Optional<Ticket> ticket = ticket(request);
            // With its ticket, a request whose enqueue never happened is stored and ended, not left unknown.
            Optional<RequestRecord> finalRecord = ticket.isPresent()
                    ? shaper.finalizer().finalizeTicket(ticket.get(), errorName, cause, now)
                    : shaper.finalizer().finalizeRequest(requestId, Json.text(request, "tenant"), errorName, cause,
                            now);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("requestId", requestId);
            result.put("error", errorName);
            result.put("status", finalRecord.map(r -> r.state().name()).orElse("UNKNOWN"));
            finalRecord.ifPresent(r -> result.put("httpStatus", r.httpStatus()));
            LOG.info("finalized after {}: {}", errorName, result);
            return result;
        });
    }
}
