package dev.trafficshaper.lifecycle;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Admission;
import dev.trafficshaper.pacing.Pacer;
import java.util.Collection;
import java.util.Optional;

/**
 * How a drainer's pacer outlives its lease: the holder publishes its state with the model status,
 * the next holder resumes from it, so a handoff neither forgets the last minute's admissions (and
 * bursts) nor a recent throttle, nor (where the handoff keeps it) an outage in progress.
 */
public interface PacerHandoff {

    /** The pacer to drain with, resumed from the last published status when there is one. */
    Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis);

    /** The pacer's state to publish, serialized; empty when this handoff keeps none. */
    String export(Pacer pacer, long nowMillis);

    /**
     * The drainer's memory of transient failures resumed from the last published status
     * ({@link BackoffState}); {@link BackoffState#NONE} when there is none or this handoff keeps none.
     */
    default BackoffState resumeBackoff(Optional<ModelStatus> last, long nowMillis) {
        return BackoffState.NONE;
    }

    /** The pacer's state and the drainer's backoff memory to publish, serialized; by default the pacer's alone. */
    default String export(Pacer pacer, BackoffState backoff, long nowMillis) {
        return export(pacer, nowMillis);
    }

    /**
     * The same at a hand-off, with the admissions still open ({@code open}) for the successor to
     * settle where this handoff keeps them; by default they are left out (they stay charged).
     */
    default String export(Pacer pacer, BackoffState backoff, Collection<Admission> open, long nowMillis) {
        return export(pacer, backoff, nowMillis);
    }

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
