package dev.trafficshaper.lifecycle;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Pacer;
import java.util.Optional;

/**
 * How a drainer's pacer outlives its lease: the holder publishes its state with the model status,
 * the next holder resumes from it, so a handoff neither forgets the last minute's admissions (and
 * bursts) nor a recent throttle.
 */
public interface PacerHandoff {

    /** The pacer to drain with, resumed from the last published status when there is one. */
    Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis);

    /** The pacer's state to publish, serialized; empty when this handoff keeps none. */
    String export(Pacer pacer, long nowMillis);

    /** Always a fresh pacer: for a single long-lived process that keeps its drainer. */
    static PacerHandoff fresh() {
        return new PacerHandoff() {
            @Override
            public Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis) {
                return Pacer.create(model.quota(), model.pacer());
            }

            @Override
            public String export(Pacer pacer, long nowMillis) {
                return "";
            }
        };
    }
}
