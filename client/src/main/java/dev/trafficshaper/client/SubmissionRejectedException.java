package dev.trafficshaper.client;

import java.util.Optional;

/**
 * The API answered {@code 400} to a submission: the request was invalid and nothing was stored.
 * Sending it again unchanged will fail the same way.
 */
public final class SubmissionRejectedException extends ShaperException {

    private final String error;
    private final String field;
    private final String body;

    SubmissionRejectedException(String error, String field, String body) {
        super(field == null ? "submission rejected: " + error : "submission rejected (" + field + "): " + error);
        this.error = error;
        this.field = field;
        this.body = body;
    }

    /** What was wrong, as the API put it. */
    public String error() {
        return error;
    }

    /** The offending field ({@code model}, {@code converse}, {@code body}...), when the API named one. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }

    /** The response body as received. */
    public String body() {
        return body;
    }
}
