package dev.trafficshaper.lease;

import java.util.Objects;

/**
 * The answer to an acquisition: when {@code granted}, {@code lease} is the caller's new lease;
 * otherwise it is the current holder's, read from the failed write itself.
 */
public record LeaseAttempt(boolean granted, Lease lease) {

    public LeaseAttempt {
        Objects.requireNonNull(lease, "lease");
    }

    public static LeaseAttempt granted(Lease lease) {
        return new LeaseAttempt(true, lease);
    }

    public static LeaseAttempt heldBy(Lease holder) {
        return new LeaseAttempt(false, holder);
    }
}
