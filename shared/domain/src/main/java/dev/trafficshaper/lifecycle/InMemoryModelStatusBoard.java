package dev.trafficshaper.lifecycle;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The status board in a map, for the local runtime and tests. */
public final class InMemoryModelStatusBoard implements ModelStatusBoard {

    private final Map<String, ModelStatus> statuses = new ConcurrentHashMap<>();

    @Override
    public void publish(ModelStatus status) {
        statuses.put(status.modelKey(), status);
    }

    @Override
    public Optional<ModelStatus> read(String modelKey) {
        return Optional.ofNullable(statuses.get(modelKey));
    }
}
