package dev.trafficshaper.lease;

/**
 * A fenced write carried a lease that is no longer current (expired, released, or taken over).
 * Nothing was written; the caller must stop draining.
 */
public final class LeaseLostException extends RuntimeException {

    private final transient Lease stale;

    public LeaseLostException(Lease stale) {
        super("lease on model " + stale.modelKey() + " with fencing token " + stale.fencingToken()
                + " held by " + stale.owner() + " is no longer current");
        this.stale = stale;
    }

    public Lease stale() {
        return stale;
    }
}
