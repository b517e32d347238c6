package dev.trafficshaper.lifecycle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerState;
import java.util.Optional;

/**
 * The handoff between drainers in different processes (Lambda invocations): the pacer's
 * {@link PacerState} travels as JSON in the model status the lease holder publishes, and the next
 * holder resumes from it. A state that cannot be read (written by another version, say) gives a
 * fresh pacer, which is what a first drainer has too.
 */
public final class StoredPacerHandoff implements PacerHandoff {

    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @Override
    public Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis) {
        Optional<PacerState> state = last.map(ModelStatus::pacerState).filter(text -> !text.isEmpty())
                .flatMap(StoredPacerHandoff::read);
        return state.map(s -> Pacer.resume(model.quota(), model.pacer(), s, nowMillis))
                .orElseGet(() -> Pacer.create(model.quota(), model.pacer()));
    }

    @Override
    public String export(Pacer pacer, long nowMillis) {
        try {
            return JSON.writeValueAsString(pacer.export(nowMillis));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("pacer state not serializable", e);
        }
    }

    static Optional<PacerState> read(String json) {
        try {
            return Optional.of(JSON.readValue(json, PacerState.class));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
