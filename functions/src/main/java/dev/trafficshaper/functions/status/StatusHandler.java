package dev.trafficshaper.functions.status;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyRequestEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import dev.trafficshaper.delivery.StatusService;
import dev.trafficshaper.functions.ApiResponses;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
import java.util.Map;
import java.util.Optional;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * {@code GET /v1/requests/{id}} (the caller's own requests only; any other id is a 404) and
 * {@code GET /v1/models}.
 */
public final class StatusHandler implements RequestHandler<APIGatewayProxyRequestEvent, APIGatewayProxyResponseEvent> {

    private final Shaper shaper;
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public StatusHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public StatusHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: the status service and its stores. */
    public static void prime(Shaper shaper) {
        shaper.status();
    }

    @Override
    public APIGatewayProxyResponseEvent handleRequest(APIGatewayProxyRequestEvent event, Context context) {
        return PowertoolsLogging.withLogging(context, () -> {
            StatusService status = shaper.status();
            long now = System.currentTimeMillis();
            String path = event.getPath() == null ? "" : event.getPath();
            if (path.endsWith("/v1/models")) {
                return ApiResponses.json(200, status.models(now));
            }
            var tenant = ApiResponses.tenant(event);
            String id = event.getPathParameters() == null ? null : event.getPathParameters().get("id");
            if (tenant.isEmpty()) {
                return ApiResponses.error(403, "the request must be signed (IAM authorization)", null);
            }
            Optional<StatusService.StatusView> view = id == null ? Optional.empty()
                    : status.status(id, tenant.get(), now);
            if (view.isEmpty()) {
                return ApiResponses.error(404, "no request with id '" + id + "'", null);
            }
            StatusService.StatusView v = view.get();
            Map<String, String> headers = v.retryAfterSeconds() > 0
                    ? Map.of("Retry-After", Long.toString(v.retryAfterSeconds())) : Map.of();
            return ApiResponses.json(v.httpStatus(), v.json(), headers);
        });
    }
}
