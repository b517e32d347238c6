package dev.trafficshaper.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TerminalTallyTest {

    private final List<OutcomeLine> passed = new ArrayList<>();
    private final OutcomeSink target = new OutcomeSink() {
        @Override
        public void write(OutcomeLine line) {
            passed.add(line);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @Test
    void countsEachRequestOnceHoweverManyLinesArriveAndIsCompleteWithOnePerScheduledRequest()
            throws InterruptedException {
        TerminalTally tally = new TerminalTally(List.of(ArmKind.DIRECT), 2);
        OutcomeSink sink = tally.counting(target);

        sink.write(line(0));
        sink.write(line(0));
        assertThat(tally.terminal(ArmKind.DIRECT)).isEqualTo(1);
        assertThat(tally.complete()).isFalse();

        sink.write(line(1));
        assertThat(passed).hasSize(3);
        assertThat(tally.complete()).isTrue();
        assertThat(tally.awaitComplete(60_000)).as("returns at once when complete").isTrue();
    }

    private static OutcomeLine line(int index) {
        return OutcomeLine.builder(ArmKind.DIRECT, RequestIds.of(TestRuns.RUN_ID, ArmKind.DIRECT, index)).index(index)
                .status(OutcomeStatus.SUCCEEDED).finishedMillis(index).build();
    }
}
