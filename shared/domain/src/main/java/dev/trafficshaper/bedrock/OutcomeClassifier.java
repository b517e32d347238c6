package dev.trafficshaper.bedrock;

import dev.trafficshaper.bedrock.BedrockOutcome.Failure;
import dev.trafficshaper.bedrock.BedrockOutcome.Rejected;
import dev.trafficshaper.bedrock.BedrockOutcome.Throttled;
import dev.trafficshaper.bedrock.BedrockOutcome.Transient;
import java.util.Map;

/**
 * Sorts Bedrock Runtime errors into throttled, transient and non-retryable, by error code first
 * and HTTP status second.
 *
 * <p>The code decides because the status alone is ambiguous: ThrottlingException and
 * ModelNotReadyException are both 429, yet only the first says the quota was exceeded, and
 * feeding a cold model's 429 to the pacer would slow every request down for nothing. Likewise
 * ValidationException and ServiceQuotaExceededException are both 400 but ask different things of
 * the caller. An unknown code falls back on the status: 429 is treated as a throttle, 408, 424 and
 * 5xx as transient, any other status as a rejection, so an unfamiliar error is never retried
 * blindly.
 *
 * <p>bedrock-mantle answers in the OpenAI ({@code {"error": {"type", "code", "message"}}}) or
 * Anthropic ({@code {"type": "error", "error": {"type", "message"}}}) style and names no Bedrock
 * error code, so its errors are sorted by status ({@link #classifyMantle}): 429 is a throttle,
 * and so is 503 (or Anthropic's 529 {@code overloaded_error}), which there means the model is
 * out of serving capacity: like a throttle it asks the caller to send less, and like a throttle
 * the pacer must hear about it.
 *
 * <p>Transient failures are split once more by what they prove ({@link TransientKind#provesNothingRan()}):
 * an error answered at once (5xx, not ready) or a connection never made proves Bedrock generated
 * nothing, and the request may go back to the queue; a model timeout (408), a model error (424),
 * a client-side timeout or a connection broken mid-call leave open that the generation ran and
 * was billed, so the request ends ({@link dev.trafficshaper.request.FailureReason#MODEL_TIMEOUT})
 * rather than risk running twice.
 */
public final class OutcomeClassifier {

    private static final Map<String, TransientKind> TRANSIENT = Map.of(
            "ModelNotReadyException", TransientKind.MODEL_NOT_READY,
            "ServiceUnavailableException", TransientKind.SERVICE_UNAVAILABLE,
            "InternalServerException", TransientKind.INTERNAL_SERVER,
            "ModelTimeoutException", TransientKind.MODEL_TIMEOUT,
            "ModelErrorException", TransientKind.MODEL_ERROR,
            // Raised inside ConverseStream; listed so a streaming caller classifies alike.
            "ModelStreamErrorException", TransientKind.MODEL_ERROR);

    private static final Map<String, RejectionKind> REJECTED = Map.of(
            "ValidationException", RejectionKind.VALIDATION,
            "ServiceQuotaExceededException", RejectionKind.SERVICE_QUOTA_EXCEEDED,
            "AccessDeniedException", RejectionKind.ACCESS_DENIED,
            "ResourceNotFoundException", RejectionKind.RESOURCE_NOT_FOUND);

    private static final String THROTTLING = "ThrottlingException";

    private OutcomeClassifier() {
    }

    /**
     * @param errorCode  the {@code x-amzn-ErrorType} code, with or without a namespace prefix; may be null
     * @param httpStatus the HTTP status of the answer
     * @param message    the service's message, kept for the record
     */
    public static Failure classify(String errorCode, int httpStatus, String message) {
        String code = shortCode(errorCode);
        if (THROTTLING.equals(code)) {
            return new Throttled(message);
        }
        TransientKind transientKind = TRANSIENT.get(code);
        if (transientKind != null) {
            return new Transient(transientKind, httpStatus, message);
        }
        RejectionKind rejectionKind = REJECTED.get(code);
        if (rejectionKind != null) {
            return new Rejected(rejectionKind, httpStatus, message);
        }
        return byStatus(httpStatus, message);
    }

    /** The call timeout passed before an answer arrived. */
    public static Transient clientTimeout(String message) {
        return new Transient(TransientKind.CLIENT_TIMEOUT, 0, message);
    }

    /**
     * The call failed on the network. A connection that could not be made (refused, unknown host,
     * no route: somewhere in {@code failure}'s causes) proves nothing was sent; anything else may
     * have broken after the request went out, so Bedrock may have run it.
     */
    public static Transient connectionFailure(Throwable failure) {
        String message = String.valueOf(failure.getMessage());
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.ConnectException || cause instanceof java.net.UnknownHostException
                    || cause instanceof java.net.NoRouteToHostException) {
                return new Transient(TransientKind.CONNECTION_REFUSED, 0, message);
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return new Transient(TransientKind.CONNECTION_BROKEN, 0, message);
    }

    /** The request was refused before sending because it is not a valid Converse body. */
    public static Rejected invalidRequest(String message) {
        return new Rejected(RejectionKind.VALIDATION, 400, message);
    }

    /**
     * A bedrock-mantle error.
     *
     * @param errorType the body's {@code error.type} or {@code error.code}, for the record; may be null
     */
    public static Failure classifyMantle(int httpStatus, String errorType, String message) {
        String detail = (errorType == null || errorType.isBlank() ? "" : errorType + ": ") + message;
        return switch (httpStatus) {
            case 429 -> new Throttled(detail);
            case 503, 529 -> new Throttled("no serving capacity (" + httpStatus + ") " + detail);
            case 408, 504 -> new Transient(TransientKind.MODEL_TIMEOUT, httpStatus, detail);
            case 500 -> new Transient(TransientKind.INTERNAL_SERVER, httpStatus, detail);
            case 400, 413, 422 -> new Rejected(RejectionKind.VALIDATION, httpStatus, detail);
            case 401, 403 -> new Rejected(RejectionKind.ACCESS_DENIED, httpStatus, detail);
            case 404 -> new Rejected(RejectionKind.RESOURCE_NOT_FOUND, httpStatus, detail);
            default -> httpStatus >= 500 ? new Transient(TransientKind.OTHER_SERVER_ERROR, httpStatus, detail)
                    : new Rejected(RejectionKind.OTHER_CLIENT_ERROR, httpStatus, detail);
        };
    }

    private static Failure byStatus(int httpStatus, String message) {
        if (httpStatus == Throttled.HTTP_STATUS) {
            return new Throttled(message);
        }
        if (httpStatus == 408 || httpStatus == 424 || httpStatus >= 500) {
            return new Transient(TransientKind.OTHER_SERVER_ERROR, httpStatus, message);
        }
        return new Rejected(RejectionKind.OTHER_CLIENT_ERROR, httpStatus, message);
    }

    // restJson1 allows "aws.protocoltests#ThrottlingException:http://..." style codes.
    private static String shortCode(String errorCode) {
        if (errorCode == null) {
            return "";
        }
        String code = errorCode;
        int hash = code.lastIndexOf('#');
        if (hash >= 0) {
            code = code.substring(hash + 1);
        }
        int colon = code.indexOf(':');
        if (colon >= 0) {
            code = code.substring(0, colon);
        }
        return code.trim();
    }
}
