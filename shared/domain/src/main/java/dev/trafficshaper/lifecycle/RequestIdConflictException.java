package dev.trafficshaper.lifecycle;

/**
 * A caller chose a {@code requestId} another tenant already uses, or re-posted one of its own with a
 * different body (as payment APIs answer a reused idempotency key); reported as {@code 409}.
 */
public final class RequestIdConflictException extends RuntimeException {

    public RequestIdConflictException(String requestId) {
        this(requestId, false);
    }

    private RequestIdConflictException(String requestId, boolean differentBody) {
        super(differentBody ? "requestId '" + requestId + "' was already submitted with a different body; re-post"
                + " the same body to get that request, or choose another requestId" : "requestId '" + requestId + "' is already in use; choose another or omit it to have one generated");
    }

    public static RequestIdConflictException differentBody(String requestId) {
        return new RequestIdConflictException(requestId, true);
    }
}
