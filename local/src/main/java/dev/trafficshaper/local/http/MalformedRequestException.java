package dev.trafficshaper.local.http;

/**
 * A request the server cannot read: answered with {@code status} and the JSON error, after which
 * the connection is closed (the rest of the stream cannot be trusted to start a new request).
 */
final class MalformedRequestException extends Exception {

    private final int status;
    private final String field;

    MalformedRequestException(int status, String message, String field) {
        super(message);
        this.status = status;
        this.field = field;
    }

    HttpResponse response() {
        return HttpResponse.error(status, getMessage(), field);
    }
}
