package dev.trafficshaper.functions;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyRequestEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** API Gateway proxy responses and the caller's identity, for the two API handlers. */
public final class ApiResponses {

    private ApiResponses() {
    }

    public static APIGatewayProxyResponseEvent json(int status, String body) {
        return json(status, body, Map.of());
    }

    public static APIGatewayProxyResponseEvent json(int status, String body, Map<String, String> headers) {
        Map<String, String> all = new HashMap<>(headers);
        all.put("Content-Type", "application/json");
        return new APIGatewayProxyResponseEvent().withStatusCode(status).withHeaders(all).withBody(body);
    }

    public static APIGatewayProxyResponseEvent error(int status, String message, String field) {
        ObjectNode body = Json.MAPPER.createObjectNode().put("error", message);
        if (field != null) {
            body.put("field", field);
        }
        return json(status, body.toString());
    }

    /** A request header by name, in any case; null when absent. */
    public static String header(APIGatewayProxyRequestEvent event, String name) {
        if (event.getHeaders() != null) {
            for (Map.Entry<String, String> header : event.getHeaders().entrySet()) {
                if (header.getKey() != null && header.getKey().equalsIgnoreCase(name)) {
                    return header.getValue();
                }
            }
        }
        if (event.getMultiValueHeaders() != null) {
            for (Map.Entry<String, java.util.List<String>> header : event.getMultiValueHeaders().entrySet()) {
                if (header.getKey() != null && header.getKey().equalsIgnoreCase(name) && header.getValue() != null
                        && !header.getValue().isEmpty()) {
                    return header.getValue().get(0);
                }
            }
        }
        return null;
    }

    /**
     * The tenant: the IAM principal API Gateway authenticated (SigV4). Never a header a caller
     * could set. Empty when the request did not come through IAM authorization.
     */
    public static Optional<String> tenant(APIGatewayProxyRequestEvent event) {
        var context = event.getRequestContext();
        if (context == null || context.getIdentity() == null) {
            return Optional.empty();
        }
        String arn = context.getIdentity().getUserArn();
        if (arn == null || arn.isBlank()) {
            arn = context.getIdentity().getCaller();
        }
        return arn == null || arn.isBlank() ? Optional.empty() : Optional.of(arn);
    }
}
