package dev.trafficshaper.pacing;

import java.util.HashMap;
import java.util.Map;

/**
 * Start-time fair queuing over a set of flows (lanes, or tenants within a lane).
 *
 * <p>Why: each flow gets its weight's share of the budget while it has work waiting, an idle flow
 * banks no credit, and no flow with work waits forever — every service advances the virtual clock,
 * so a waiting flow's start tag is eventually the smallest.
 *
 * <pre>
 *   start(f)  = max(finish(f), V)
 *   serve f:  finish(f) = start(f) + cost / weight(f);  V = start(f)
 * </pre>
 */
final class FairShare<K> {

    private static final int PRUNE_ABOVE = 4_096;

    private final Map<K, Double> finish = new HashMap<>();
    private double virtualTime;

    double start(K flow) {
        return Math.max(finish.getOrDefault(flow, 0.0), virtualTime);
    }

    void served(K flow, double cost, double weight) {
        double start = start(flow);
        finish.put(flow, start + cost / weight);
        virtualTime = start;
        if (finish.size() > PRUNE_ABOVE) {
            finish.values().removeIf(f -> f <= virtualTime);
        }
    }

    /** Credits back part of a flow's cost, e.g. a refund after settlement. */
    void refund(K flow, double cost, double weight) {
        finish.computeIfPresent(flow, (k, f) -> Math.max(virtualTime, f - cost / weight));
    }
}
