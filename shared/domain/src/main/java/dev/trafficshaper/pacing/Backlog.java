package dev.trafficshaper.pacing;

/**
 * Work already queued for a model, per lane, in normalized cost (see {@link Pacer#normalizedCost}):
 * 1.0 is one minute of the model's most constrained quota.
 */
public record Backlog(double interactive, double bulk) {

    public static final Backlog EMPTY = new Backlog(0, 0);

    public Backlog {
        if (interactive < 0 || bulk < 0) {
            throw new IllegalArgumentException("backlog must not be negative");
        }
    }
}
