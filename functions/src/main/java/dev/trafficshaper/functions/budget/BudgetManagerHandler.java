package dev.trafficshaper.functions.budget;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
import dev.trafficshaper.lifecycle.Ticket;
import dev.trafficshaper.lifecycle.TicketJson;
import dev.trafficshaper.request.RequestRecord;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.trafficshaper.functions.Logs;

/**
 * The Admit state's {@code .waitForTaskToken} task: enqueues the request with its task token and
 * returns; the execution waits until the Bedrock Processor (or the drainer, on expiry) resumes it.
 * Input: {@code {taskToken, executionArn, startedAt, request: <ticket>}}.
 */
public final class BudgetManagerHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

    private static final Logger LOG = LoggerFactory.getLogger(BudgetManagerHandler.class);

    private final Shaper shaper;
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public BudgetManagerHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public BudgetManagerHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: its admission service (queue, stores, lease, wake-up, callback) and metrics. */
    public static void prime(Shaper shaper) {
        shaper.admissions();
        shaper.metrics();
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
        JsonNode input = Json.tree(event);
        Ticket ticket = TicketJson.read(input.get("request"));
        return Logs.with(context, "requestId", ticket.requestId(), () -> {
            RequestRecord record = shaper.admissions().admit(ticket, Json.text(input, "taskToken"), System.currentTimeMillis());
            shaper.metrics().enqueued(ticket.modelKey());
            LOG.info("enqueued on shard {} in state {}", record.shard(), record.state());
            return Map.of("requestId", record.requestId(), "status", record.state().name());
        });
    }
}
