package dev.trafficshaper.lifecycle;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The status board in a map, for the local runtime and tests. */
public final class InMemoryModelStatusBoard implements ModelStatusBoard {

    private record Published(ModelStatus status, long fencingToken) {
    }

    private final Map<String, Published> statuses = new ConcurrentHashMap<>();

    @Override
    public boolean publish(ModelStatus status, long fencingToken) {
        Published mine = new Published(status, fencingToken);
        Published stored = statuses.merge(status.modelKey(), mine,
                (current, next) -> current.fencingToken() > next.fencingToken() ? current : next);
        return stored == mine;
    }

    @Override
    public Optional<ModelStatus> read(String modelKey) {
        Published published = statuses.get(modelKey);
        return published == null ? Optional.empty() : Optional.of(published.status());
    }
}
