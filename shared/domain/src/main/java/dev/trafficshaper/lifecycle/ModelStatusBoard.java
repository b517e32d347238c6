package dev.trafficshaper.lifecycle;

import java.util.Optional;

/** The latest {@link ModelStatus} per model: one small item each, written by the lease holder. */
public interface ModelStatusBoard {

    /**
     * Stores {@code status} unless the board holds one published under a later lease (a higher
     * fencing token), so a drainer that lost its lease without noticing cannot overwrite what its
     * successor published. Returns whether it was stored.
     */
    boolean publish(ModelStatus status, long fencingToken);

    /** Stores {@code status} as published under no lease (fencing token 0): for seeding a board. */
    default boolean publish(ModelStatus status) {
        return publish(status, 0);
    }

    Optional<ModelStatus> read(String modelKey);
}
