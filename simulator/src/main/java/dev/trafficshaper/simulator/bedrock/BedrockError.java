package dev.trafficshaper.simulator.bedrock;

import java.util.Locale;

/**
 * The Bedrock Runtime errors the simulator can answer with. Clients tell them apart by the code in
 * the {@code x-amzn-ErrorType} header, so the code must match the service's shape name exactly.
 */
public enum BedrockError {
    THROTTLING("ThrottlingException", 429),
    MODEL_NOT_READY("ModelNotReadyException", 429),
    SERVICE_UNAVAILABLE("ServiceUnavailableException", 503),
    INTERNAL_SERVER("InternalServerException", 500),
    MODEL_TIMEOUT("ModelTimeoutException", 408),
    MODEL_ERROR("ModelErrorException", 424),
    VALIDATION("ValidationException", 400),
    SERVICE_QUOTA_EXCEEDED("ServiceQuotaExceededException", 400),
    ACCESS_DENIED("AccessDeniedException", 403),
    RESOURCE_NOT_FOUND("ResourceNotFoundException", 404),
    /** Not a Bedrock shape: what the simulator answers for a path it does not serve. */
    UNKNOWN_OPERATION("UnknownOperationException", 404);

    private final String code;
    private final int status;

    BedrockError(String code, int status) {
        this.code = code;
        this.status = status;
    }

    public String code() {
        return code;
    }

    public int status() {
        return status;
    }

    /** Accepts the wire code with or without its {@code Exception} suffix, in any case. */
    public static BedrockError fromCode(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (BedrockError error : values()) {
            String code = error.code.toLowerCase(Locale.ROOT);
            if (code.equals(wanted) || code.equals(wanted + "exception")) {
                return error;
            }
        }
        throw new IllegalArgumentException("unknown Bedrock error '" + name + "'");
    }
}
