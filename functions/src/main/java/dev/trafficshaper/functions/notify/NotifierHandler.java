package dev.trafficshaper.functions.notify;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.functions.Logs;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
import dev.trafficshaper.request.RequestRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Notifier, invoked two ways:
 * <ul>
 *   <li>by the Deliver and DeliverFailure states, {@code {executionArn, request: <ticket>}}: queues
 *       the webhook and publishes the outcome event ({@link Notifier}), and returns at once;</li>
 *   <li>by the delivery queue's event source mapping, {@code {"Records": [...]}}: one signed
 *       webhook attempt per message, with a short timeout, retried by SQS on the delivery schedule
 *       ({@code SqsWebhookAttempts}); answers the failed messages as batch item failures.</li>
 * </ul>
 */
public final class NotifierHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

    private final Shaper shaper;
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public NotifierHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public NotifierHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: the notifier (stores, delivery queue, event bus); the webhook sender, which reads the signing key, is left to first use. */
    public static void prime(Shaper shaper) {
        shaper.notifier();
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
        if (event.containsKey("Records")) {
            return Logs.with(context, "source", "delivery-queue", () -> shaper.webhookAttempts().handle(Json.tree(event)));
        }
        JsonNode request = Json.tree(event).get("request");
        String requestId = Json.text(request, "requestId");
        String tenant = Json.text(request, "tenant");
        return Logs.with(context, "requestId", requestId, () -> {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("requestId", requestId);
            Optional<RequestRecord> record = shaper.requests().find(requestId, System.currentTimeMillis())
                    .filter(r -> r.tenant().equals(tenant));
            if (record.isEmpty()) {
                result.put("delivered", false);
                return result;
            }
            Notifier.Delivery delivery = shaper.notifier().deliver(record.get());
            result.put("delivered", true);
            result.put("webhookQueued", delivery.webhookQueued());
            return result;
        });
    }
}
