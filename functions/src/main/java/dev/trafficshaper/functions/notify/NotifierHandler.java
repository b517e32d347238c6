package dev.trafficshaper.functions.notify;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.request.RequestRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.trafficshaper.functions.Logs;

/**
 * The Deliver and DeliverFailure states: {@code {executionArn, request: <ticket>}}. Sends the
 * outcome event and the signed webhook for the request's terminal state. A webhook that keeps
 * failing is logged and reported, not thrown: the status stays readable through the API.
 */
public final class NotifierHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

    private static final Logger LOG = LoggerFactory.getLogger(NotifierHandler.class);

    private final Shaper shaper;

    public NotifierHandler() {
        this(Shaper.fromEnvironment());
    }

    public NotifierHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
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
            try {
                Notifier.Delivery delivery = shaper.notifier().deliver(record.get());
                result.put("delivered", true);
                result.put("webhookStatus", delivery.webhookStatus());
                if (delivery.webhookError() != null) {
                    LOG.warn("webhook not delivered after {} attempts: {}", delivery.webhookAttempts(),
                            delivery.webhookError());
                    result.put("webhookError", delivery.webhookError());
                }
                return result;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("delivery interrupted", e);
            }
        });
    }
}
