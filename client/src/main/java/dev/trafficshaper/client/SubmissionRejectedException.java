package dev.trafficshaper.client;

import java.time.Duration;
import java.util.Optional;

/**
 * The shaper refused a submission and stored nothing new:
 * <ul>
 *   <li>{@code 400}: the request is invalid; sending it again unchanged fails the same way;
 *   <li>{@code 409}: the {@code requestId} is already taken by a different request;
 *   <li>{@code 429}: it cannot be served in time (its predicted start is past its deadline), or API
 *       Gateway is throttling; {@link #retryAfter()} says when to try again.
 * </ul>
 */
public final class SubmissionRejectedException extends ShaperException {

    private final int statusCode;
    private final String error;
    private final String field;
    private final Duration retryAfter;
    private final String body;

    SubmissionRejectedException(int statusCode, String error, String field, Duration retryAfter, String body) {
        super("submission rejected (" + statusCode + (field == null ? "" : ", " + field) + "): " + error);
        this.statusCode = statusCode;
        this.error = error;
        this.field = field;
        this.retryAfter = retryAfter;
        this.body = body == null ? "" : body;
    }

    /** {@code 400}, {@code 409} or {@code 429}. */
    public int statusCode() {
        return statusCode;
    }

    /** What was wrong, as the API put it. */
    public String error() {
        return error;
    }

    /** The offending field ({@code model}, {@code converse}, {@code requestId}...), when the API named one. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }

    /** Whether the same submission may be accepted later: only for {@code 429}. */
    public boolean isRetryable() {
        return statusCode == 429;
    }

    /** For {@code 429}: how long the API asked the client to wait, if it did. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** The response body as received. */
    public String body() {
        return body;
    }
}
