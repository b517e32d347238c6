package dev.trafficshaper.lifecycle;

import java.util.Optional;

/** The latest {@link ModelStatus} per model: one small item each, written by the lease holder. */
public interface ModelStatusBoard {

    void publish(ModelStatus status);

    Optional<ModelStatus> read(String modelKey);
}
