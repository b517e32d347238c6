package dev.trafficshaper.functions;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyRequestEvent;
import java.util.Map;

/** API Gateway proxy events as the REST API hands them to the Submit and Status functions, signed by one caller. */
final class ApiEvents {

    private ApiEvents() {
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
}
