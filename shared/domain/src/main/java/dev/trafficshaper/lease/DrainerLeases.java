package dev.trafficshaper.lease;

import java.util.Optional;

/**
 * One drainer per model. A lease is granted only when none is active; renewal extends it only
 * while the caller still holds it; release ends it early for a successor. The fencing token is
 * never reset, so writes fenced with an old token stay refused forever.
 */
public interface DrainerLeases {

    /** Grants a lease for {@code durationMillis} if no lease on the model is active. */
    LeaseAttempt acquire(String modelKey, String owner, long durationMillis, long nowMillis);

    /** Extends {@code lease} to {@code nowMillis + durationMillis}; empty when it is no longer held. */
    Optional<Lease> renew(Lease lease, long durationMillis, long nowMillis);

    /** Ends {@code lease} now; false when it was no longer held. */
    boolean release(Lease lease, long nowMillis);

    /** The active lease on the model, if any. */
    Optional<Lease> current(String modelKey, long nowMillis);

    /** Whether {@code lease} is the model's active lease at {@code nowMillis}: what fenced writes check. */
    default boolean holds(Lease lease, long nowMillis) {
        return current(lease.modelKey(), nowMillis)
                .filter(active -> active.fencingToken() == lease.fencingToken()
                        && active.owner().equals(lease.owner()))
                .isPresent();
    }
}
