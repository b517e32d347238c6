package dev.trafficshaper.lifecycle;

/**
 * A valid submission refused at once because it cannot be served in time: its predicted start is
 * past its deadline on the model and on any fallback. Reported as {@code 429} with
 * {@code Retry-After}; nothing is stored.
 */
public final class SubmissionRefusedException extends RuntimeException {

    private final long retryAfterSeconds;

    public SubmissionRefusedException(String message, long retryAfterSeconds) {
        super(message);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
