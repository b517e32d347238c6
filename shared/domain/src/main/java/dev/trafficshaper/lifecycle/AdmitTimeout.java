package dev.trafficshaper.lifecycle;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import java.time.Duration;

/**
 * How long a request's workflow waits at its Admit step, set per request by Submit (the execution
 * input's {@code admitTimeoutSeconds}, read by the state machine's {@code TimeoutSecondsPath}).
 *
 * <p>Why per request: the sweeper brings every request to a terminal state within its deadline plus
 * its bound (30 s before an orphan counts as one, and a sweep at least every 60 s: 90 s), and the
 * writer of that state resumes the workflow. The Admit timeout is the backstop for the case where
 * nothing resumed it (every sweeper stopped, a resume lost): taken from the request's own deadline,
 * no execution outlives its deadline by more than the grace, where one stack-wide timeout (the
 * longest {@code maxDeadlineSeconds} plus grace) left a 60 s request pending for an hour.
 *
 * <p>Formula: {@code ceil((deadline − now) / 1 s) + grace}, at least the grace, at most the longest
 * {@code maxDeadlineSeconds} of the catalog plus the grace (a deadline cannot be longer). The
 * default grace, {@value #DEFAULT_GRACE_SECONDS} s, covers the sweeper's 90 s bound with 30 s to
 * spare, so the sweeper, not the timeout, normally ends an overdue request.
 */
public final class AdmitTimeout {

    public static final long DEFAULT_GRACE_SECONDS = 120;
    /** Longest run of a Standard Step Functions execution (one year). */
    public static final long STANDARD_EXECUTION_LIMIT_SECONDS = 365L * 24 * 3600;

    private final long graceSeconds;
    private final long capSeconds;

    private AdmitTimeout(long graceSeconds, long capSeconds) {
        this.graceSeconds = graceSeconds;
        this.capSeconds = capSeconds;
    }

    /** For the models of {@code catalog}, with {@code grace} (whole seconds, at least one). */
    public static AdmitTimeout forCatalog(ModelCatalog catalog, Duration grace) {
        long longest = catalog.all().stream().mapToLong(ModelConfig::maxDeadlineSeconds).max().orElse(0);
        return of(longest, grace);
    }

    /** For a longest deadline of {@code longestDeadlineSeconds}, with {@code grace}. */
    public static AdmitTimeout of(long longestDeadlineSeconds, Duration grace) {
        if (grace == null || grace.toSeconds() < 1 || longestDeadlineSeconds < 0) {
            throw new IllegalArgumentException("the grace must be at least 1 s and the longest deadline not negative");
        }
        long cap = longestDeadlineSeconds + grace.toSeconds();
        if (cap > STANDARD_EXECUTION_LIMIT_SECONDS) {
            throw new IllegalArgumentException("a longest deadline of " + longestDeadlineSeconds + " s plus "
                    + grace.toSeconds() + " s of grace is longer than a Standard execution may run ("
                    + STANDARD_EXECUTION_LIMIT_SECONDS + " s)");
        }
        return new AdmitTimeout(grace.toSeconds(), cap);
    }

    /** The Admit timeout, in seconds, of a request due at {@code deadlineMillis}, started at {@code nowMillis}. */
    public long seconds(long deadlineMillis, long nowMillis) {
        long remaining = Math.max(0, Math.floorDiv(deadlineMillis - nowMillis + 999, 1000));
        return Math.min(capSeconds, remaining + graceSeconds);
    }

    /** The longest timeout any request gets: the longest deadline plus the grace. */
    public long capSeconds() {
        return capSeconds;
    }

    public long graceSeconds() {
        return graceSeconds;
    }
}
