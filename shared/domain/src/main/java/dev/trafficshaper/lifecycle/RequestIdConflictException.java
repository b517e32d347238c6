package dev.trafficshaper.lifecycle;

/** A caller chose a {@code requestId} another tenant already uses; reported as {@code 409}. */
public final class RequestIdConflictException extends RuntimeException {

    public RequestIdConflictException(String requestId) {
        super("requestId '" + requestId + "' is already in use; choose another or omit it to have one generated");
    }
}
