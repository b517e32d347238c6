package dev.trafficshaper.loadtest.sim;

/** How a client gets its requests to Bedrock. One instance per run. */
public interface Strategy {

    /** A request arrives at the client now. */
    void arrive(SimRequest request);

    /** What the production drainer's surroundings did, for the strategy that runs it; null otherwise. */
    default DrainerActivity drainerActivity() {
        return null;
    }
}
