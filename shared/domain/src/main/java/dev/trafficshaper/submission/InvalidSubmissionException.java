package dev.trafficshaper.submission;

/**
 * A submission the API refuses with {@code 400 {"error", "field"}}; nothing has been stored.
 * {@code field} is a JSON path into the request body, e.g. {@code converse.inferenceConfig.maxTokens}.
 */
public final class InvalidSubmissionException extends RuntimeException {

    private final String field;

    public InvalidSubmissionException(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
