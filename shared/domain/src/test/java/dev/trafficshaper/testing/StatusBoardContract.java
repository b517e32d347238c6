package dev.trafficshaper.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.lifecycle.ModelStatusBoard;
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
