package dev.trafficshaper.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.lifecycle.BackoffState;
import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.lifecycle.ModelStatusBoard;
import dev.trafficshaper.lifecycle.StoredPacerHandoff;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Admission;
import dev.trafficshaper.pacing.Candidate;
import dev.trafficshaper.pacing.Decision;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link ModelStatusBoard} does; run against the in-memory board and DynamoDB alike. */
public abstract class StatusBoardContract {

    private static final long T0 = 1_700_000_000_000L;

    private ModelStatusBoard board;

    protected abstract ModelStatusBoard newBoard();

    @BeforeEach
    void setUp() {
        board = newBoard();
    }

    @Test
    void aPublishedStatusReadsBackWhole() {
        ModelStatus status = new ModelStatus("nova-lite", T0, 7, 1.25, 0.5, T0 + 40, 0.8, 41, 2, "{\"pacer\":1}");

        assertThat(board.publish(status, 3)).isTrue();

        assertThat(board.read("nova-lite")).contains(status);
        assertThat(board.read("other")).isEmpty();
    }

    @Test
    void aHandOffsStatusWithItsOpenCallsAndQuarterSecondChargesReadsBackWholeAndResumes() {
        ModelConfig model = ModelConfig.of("nova-lite", "model-id", Quota.tokensPerMinute(60_000_000))
                .withPacer(PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).headroom(false).build());
        Pacer pacer = Pacer.create(model.quota(), model.pacer());
        List<Admission> open = new ArrayList<>();
        for (int i = 0; i < 240; i++) {
            Candidate call = new Candidate("call-" + i, Lane.BULK, "tenant", TokenUsage.of(1_000, 100_000), T0,
                    Long.MAX_VALUE);
            open.add(((Decision.Admit) pacer.decide(List.of(call), T0 + 250L * i)).admission());
        }
        long at = T0 + 60_000;
        StoredPacerHandoff handoff = new StoredPacerHandoff();
        String state = handoff.export(pacer, BackoffState.NONE, open, at);
        ModelStatus status = new ModelStatus("nova-lite", at, 0, 0, 0, at, 1.0, 240, 0, state);

        assertThat(state.length()).as("tens of kilobytes").isGreaterThan(40_000);
        assertThat(board.publish(status, 3)).isTrue();

        assertThat(board.read("nova-lite")).contains(status);
        assertThat(handoff.resume(model, board.read("nova-lite"), at).takeCarriedCalls())
                .as("every call still open, the first one too, whose admission has left the window").hasSize(240);
    }

    @Test
    void aStatusPublishedUnderAnEarlierLeaseDoesNotReplaceItsSuccessors() {
        ModelStatus successor = ModelStatus.idle("nova-lite", 0.95, T0 + 2_000);
        board.publish(successor, 5);

        boolean stale = board.publish(ModelStatus.idle("nova-lite", 0.5, T0 + 3_000), 4);

        assertThat(stale).isFalse();
        assertThat(board.read("nova-lite")).contains(successor);
    }

    @Test
    void theSameOrALaterLeaseReplacesTheStatus() {
        board.publish(ModelStatus.idle("nova-lite", 0.95, T0), 5);
        ModelStatus again = ModelStatus.idle("nova-lite", 0.9, T0 + 2_000);
        ModelStatus later = ModelStatus.idle("nova-lite", 0.85, T0 + 4_000);

        assertThat(board.publish(again, 5)).isTrue();
        assertThat(board.read("nova-lite")).contains(again);
        assertThat(board.publish(later, 6)).isTrue();
        assertThat(board.read("nova-lite")).contains(later);
    }

    @Test
    void aDrainerThatLostItsLeaseUnawaresCannotReplaceThePacerStateItsSuccessorHandsOn() {
        ModelStatus mine = new ModelStatus("nova-lite", T0, 3, 0, 0, T0, 0.95, 10, 0, "{\"pacer\":\"old holder\"}");
        board.publish(mine, 7);
        ModelStatus successors = new ModelStatus("nova-lite", T0 + 31_000, 3, 0, 0, T0, 0.8, 12, 1,
                "{\"pacer\":\"successor\"}");
        board.publish(successors, 8);

        // The old holder, paused past its lease, wakes and publishes its final status and pacer state.
        boolean late = board.publish(new ModelStatus("nova-lite", T0 + 32_000, 0, 0, 0, T0, 0.95, 11, 0,
                "{\"pacer\":\"old holder, later\"}"), 7);

        assertThat(late).isFalse();
        assertThat(board.read("nova-lite").orElseThrow().pacerState()).isEqualTo("{\"pacer\":\"successor\"}");
    }
}
