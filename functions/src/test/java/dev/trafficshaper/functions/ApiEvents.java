package dev.trafficshaper.functions;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyRequestEvent;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;

/** API Gateway proxy events as the REST API hands them to the Submit and Status functions, signed by one caller. */
final class ApiEvents {

    private ApiEvents() {
    }

    /** {@code POST /v1/requests} with {@code body} (JSON), from {@code tenant}. */
    static APIGatewayProxyRequestEvent submit(String body, String tenant) {
        return of("POST", "/v1/requests", body, null, tenant);
    }

    /** {@code GET /v1/requests/{id}}, from {@code tenant}. */
    static APIGatewayProxyRequestEvent status(String id, String tenant) {
        return of("GET", "/v1/requests/" + id, null, id, tenant);
    }

    /** {@code body} (JSON) and the path's {@code id} are optional; {@code tenant} is the caller's IAM ARN. */
    static APIGatewayProxyRequestEvent of(String method, String path, String body, String id, String tenant) {
        APIGatewayProxyRequestEvent event = new APIGatewayProxyRequestEvent().withHttpMethod(method).withPath(path)
                .withBody(body).withIsBase64Encoded(false);
        if (body != null) {
            event.setHeaders(Map.of("content-type", "application/json; charset=utf-8"));
        }
        if (id != null) {
            event.setPathParameters(Map.of("id", id));
        }
        event.setRequestContext(new APIGatewayProxyRequestEvent.ProxyRequestContext().withIdentity(
                new APIGatewayProxyRequestEvent.RequestIdentity().withUserArn(tenant)));
        return event;
    }

    /** The JSON of a response's body, or of a message the functions sent; other text fails the test. */
    static JsonNode json(String body) {
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }
}
