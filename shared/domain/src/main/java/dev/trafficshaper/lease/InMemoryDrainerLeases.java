package dev.trafficshaper.lease;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Leases in a map. Every method holds this object's monitor; the in-memory queue holds it too
 * while it admits, so a lease cannot change hands in the middle of a fenced write.
 */
public final class InMemoryDrainerLeases implements DrainerLeases {

    /** The last lease per model, kept after expiry so its fencing token keeps counting. */
    private final Map<String, Lease> last = new HashMap<>();

    @Override
    public synchronized LeaseAttempt acquire(String modelKey, String owner, long durationMillis, long nowMillis) {
        requirePositive(durationMillis);
        Lease previous = last.get(modelKey);
        if (previous != null && previous.isActive(nowMillis)) {
            return LeaseAttempt.heldBy(previous);
        }
        long token = previous == null ? 1 : previous.fencingToken() + 1;
        Lease lease = new Lease(modelKey, owner, token, Math.addExact(nowMillis, durationMillis));
        last.put(modelKey, lease);
        return LeaseAttempt.granted(lease);
    }

    @Override
    public synchronized Optional<Lease> renew(Lease lease, long durationMillis, long nowMillis) {
        requirePositive(durationMillis);
        if (!holds(lease, nowMillis)) {
            return Optional.empty();
        }
        Lease renewed = new Lease(lease.modelKey(), lease.owner(), lease.fencingToken(),
                Math.addExact(nowMillis, durationMillis));
        last.put(lease.modelKey(), renewed);
        return Optional.of(renewed);
    }

    @Override
    public synchronized boolean release(Lease lease, long nowMillis) {
        Lease previous = last.get(lease.modelKey());
        if (previous == null || previous.fencingToken() != lease.fencingToken()
                || !previous.owner().equals(lease.owner())) {
            return false;
        }
        last.put(lease.modelKey(), new Lease(lease.modelKey(), lease.owner(), lease.fencingToken(), nowMillis));
        return true;
    }

    @Override
    public synchronized Optional<Lease> current(String modelKey, long nowMillis) {
        return Optional.ofNullable(last.get(modelKey)).filter(lease -> lease.isActive(nowMillis));
    }

    private static void requirePositive(long durationMillis) {
        if (durationMillis < 1) {
            throw new IllegalArgumentException("durationMillis must be positive");
        }
    }
}
