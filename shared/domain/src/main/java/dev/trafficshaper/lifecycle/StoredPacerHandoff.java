package dev.trafficshaper.lifecycle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Admission;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerState;
import java.util.Collection;
import java.util.Optional;

/**
 * The handoff between drainers in different processes (Lambda invocations): the pacer's
 * {@link PacerState} travels as JSON in the model status the lease holder publishes, and the next
 * holder resumes from it. A state that cannot be read (written by another version, say) gives a
 * fresh pacer, which is what a first drainer has too.
 *
 * <p>The drainer's {@link BackoffState}, when it remembers anything, rides in the same JSON object
 * under {@value #BACKOFF}, so it is fenced with the pacer's state and an older reader ignores it;
 * a state without it (older, or nothing to remember) resumes as {@link BackoffState#NONE}.
 */
public final class StoredPacerHandoff implements PacerHandoff {

    static final String BACKOFF = "backoff";

    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @Override
    public Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis) {
        Optional<PacerState> state = published(last).flatMap(StoredPacerHandoff::read);
        return state.map(s -> Pacer.resume(model.quota(), model.pacer(), s, nowMillis))
                .orElseGet(() -> Pacer.create(model.quota(), model.pacer()));
    }

    @Override
    public BackoffState resumeBackoff(Optional<ModelStatus> last, long nowMillis) {
        return published(last).flatMap(StoredPacerHandoff::readBackoff).orElse(BackoffState.NONE);
    }

    @Override
    public String export(Pacer pacer, long nowMillis) {
        return export(pacer, BackoffState.NONE, nowMillis);
    }

    @Override
    public String export(Pacer pacer, BackoffState backoff, long nowMillis) {
        return write(pacer.export(nowMillis), backoff);
    }

    /** At a hand-off the open calls travel too ({@link PacerState.OpenCall}), so the successor settles them. */
    @Override
    public String export(Pacer pacer, BackoffState backoff, Collection<Admission> open, long nowMillis) {
        return write(pacer.export(nowMillis, open), backoff);
    }

    private static String write(PacerState state, BackoffState backoff) {
        try {
            if (backoff.remembersNothing()) {
                return JSON.writeValueAsString(state);
            }
            ObjectNode node = JSON.valueToTree(state);
            node.set(BACKOFF, JSON.valueToTree(backoff));
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalStateException("pacer state not serializable", e);
        }
    }

    private static Optional<String> published(Optional<ModelStatus> last) {
        return last.map(ModelStatus::pacerState).filter(text -> !text.isEmpty());
    }

    static Optional<PacerState> read(String json) {
        try {
            return Optional.of(JSON.readValue(json, PacerState.class));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static Optional<BackoffState> readBackoff(String json) {
        try {
            JsonNode backoff = JSON.readTree(json).get(BACKOFF);
            return backoff == null || !backoff.isObject() ? Optional.empty()
                    : Optional.of(JSON.treeToValue(backoff, BackoffState.class));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
