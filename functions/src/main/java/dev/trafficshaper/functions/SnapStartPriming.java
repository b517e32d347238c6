package dev.trafficshaper.functions;

import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;

/**
 * Builds a function's SDK clients and services before SnapStart snapshots its initialized execution
 * environment, so a restored function starts with its classes loaded and its clients made instead of
 * building them during its first request (the composition root is otherwise lazy). Construction only:
 * no AWS call is made before the snapshot, since a connection opened then would be stale after a
 * restore and the Bedrock client never retries, and nothing secret is read into the snapshot (the
 * webhook key is fetched on first use). Off SnapStart (tests, the local server, a JDK without CRaC)
 * the org.crac context never calls it.
 */
public final class SnapStartPriming implements Resource {

    private final Runnable prime;

    private SnapStartPriming(Runnable prime) {
        this.prime = prime;
    }

    /**
     * Registers {@code prime} to run before the checkpoint. The context holds resources weakly: keep
     * the returned instance referenced from the handler.
     */
    public static SnapStartPriming register(Runnable prime) {
        SnapStartPriming priming = new SnapStartPriming(prime);
        Core.getGlobalContext().register(priming);
        return priming;
    }

    @Override
    public void beforeCheckpoint(Context<? extends Resource> context) {
        prime.run();
    }

    @Override
    public void afterRestore(Context<? extends Resource> context) {
        // nothing to refresh: clients resolve credentials and open connections on first use
    }
}
