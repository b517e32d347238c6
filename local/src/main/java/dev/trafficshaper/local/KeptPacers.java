package dev.trafficshaper.local;

import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.lifecycle.PacerHandoff;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Pacer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local runtime's pacer handoff: one pacer per model for the life of the process, so nothing
 * needs to travel through the status board. Only one drainer per model runs at a time (the
 * runtime's per-model flag and the lease), and a drainer starts only after the previous one
 * finished, so a pacer is never used by two threads at once.
 */
final class KeptPacers implements PacerHandoff {

    private final Map<String, Pacer> pacers = new ConcurrentHashMap<>();

    @Override
    public Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis) {
        return pacers.computeIfAbsent(model.key(), key -> Pacer.create(model.quota(), model.pacer()));
    }

    @Override
    public String export(Pacer pacer, long nowMillis) {
        return "";
    }
}
