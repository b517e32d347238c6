package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * bedrock-mantle's errors in each API's own style, so the OpenAI and Anthropic SDKs raise their
 * usual exceptions: OpenAI {@code {"error": {"message", "type", "param", "code"}}}, Anthropic
 * {@code {"type": "error", "error": {"type", "message"}}}. A throttle is 429
 * ({@code rate_limit_exceeded} / {@code rate_limit_error}); a model out of serving capacity (or
 * not ready) is 503 ({@code overloaded_error}).
 */
final class MantleErrors {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private MantleErrors() {
    }

    static int status(BedrockError error) {
        return switch (error) {
            case THROTTLING -> 429;
            case MODEL_NOT_READY, SERVICE_UNAVAILABLE -> 503;
            case INTERNAL_SERVER, MODEL_ERROR -> 500;
            case MODEL_TIMEOUT -> 504;
            case VALIDATION, SERVICE_QUOTA_EXCEEDED -> 400;
            case ACCESS_DENIED -> 403;
            case RESOURCE_NOT_FOUND, UNKNOWN_OPERATION -> 404;
        };
    }

    static ObjectNode openAi(BedrockError error, String message) {
        ObjectNode body = JSON.objectNode();
        ObjectNode detail = body.putObject("error");
        detail.put("message", message);
        String[] typeAndCode = switch (error) {
            case THROTTLING -> new String[] {"tokens", "rate_limit_exceeded"};
            case MODEL_NOT_READY, SERVICE_UNAVAILABLE -> new String[] {"server_error", "capacity_exceeded"};
            case INTERNAL_SERVER, MODEL_ERROR -> new String[] {"server_error", null};
            case MODEL_TIMEOUT -> new String[] {"timeout", null};
            case VALIDATION, SERVICE_QUOTA_EXCEEDED -> new String[] {"invalid_request_error", null};
            case ACCESS_DENIED -> new String[] {"permission_error", null};
            case RESOURCE_NOT_FOUND, UNKNOWN_OPERATION -> new String[] {"invalid_request_error", "model_not_found"};
        };
        detail.put("type", typeAndCode[0]);
        detail.putNull("param");
        if (typeAndCode[1] == null) {
            detail.putNull("code");
        } else {
            detail.put("code", typeAndCode[1]);
        }
        return body;
    }

    static ObjectNode anthropic(BedrockError error, String message) {
        ObjectNode body = JSON.objectNode();
        body.put("type", "error");
        ObjectNode detail = body.putObject("error");
        detail.put("type", switch (error) {
            case THROTTLING -> "rate_limit_error";
            case MODEL_NOT_READY, SERVICE_UNAVAILABLE -> "overloaded_error";
            case INTERNAL_SERVER, MODEL_ERROR -> "api_error";
            case MODEL_TIMEOUT -> "timeout_error";
            case VALIDATION, SERVICE_QUOTA_EXCEEDED -> "invalid_request_error";
            case ACCESS_DENIED -> "permission_error";
            case RESOURCE_NOT_FOUND, UNKNOWN_OPERATION -> "not_found_error";
        });
        detail.put("message", message);
        return body;
    }
}
