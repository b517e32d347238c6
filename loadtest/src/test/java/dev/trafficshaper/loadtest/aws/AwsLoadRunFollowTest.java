package dev.trafficshaper.loadtest.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.lifecycle.DrainClock;
import dev.trafficshaper.loadtest.harness.DirectoryObjectStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionRequest;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.ListMapRunsRequest;
import software.amazon.awssdk.services.sfn.model.ListMapRunsResponse;

/** {@code run --aws} following its execution on fake time: it polls on the clock it is given. */
class AwsLoadRunFollowTest {

    private static final long T0 = 1_750_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void pollsTheExecutionOncePerProgressIntervalOnTheGivenClockUntilItEnds() throws Exception {
        FakeClock clock = new FakeClock();
        ScriptedSfn sfn = new ScriptedSfn(clock, ExecutionStatus.RUNNING, ExecutionStatus.RUNNING,
                ExecutionStatus.SUCCEEDED);
        StringWriter out = new StringWriter();

        ExecutionStatus status = AwsLoadRun.follow(sfn, new DirectoryObjectStore(dir), "arn:execution", T0,
                new PrintWriter(out), clock);

        assertThat(status).isEqualTo(ExecutionStatus.SUCCEEDED);
        long p = AwsLoadRun.PROGRESS_MILLIS;
        assertThat(clock.waits).containsExactly(T0 + p, T0 + 2 * p, T0 + 3 * p);
        assertThat(sfn.describedAt).containsExactlyElementsOf(clock.waits);
        assertThat(out.toString().lines()).hasSize(3).last().asString().contains("+45 s  SUCCEEDED");
    }

    @Test
    void anInterruptedWaitEndsTheFollowBeforeAnotherCall() {
        DrainClock interrupted = new DrainClock() {
            @Override
            public long nowMillis() {
                return T0;
            }

            @Override
            public void sleepUntil(long atMillis) throws InterruptedException {
                throw new InterruptedException("stopped");
            }
        };
        ScriptedSfn sfn = new ScriptedSfn(interrupted, ExecutionStatus.RUNNING);

        assertThatThrownBy(() -> AwsLoadRun.follow(sfn, new DirectoryObjectStore(dir), "arn:execution", T0,
                new PrintWriter(new StringWriter()), interrupted)).isInstanceOf(InterruptedException.class);
        assertThat(sfn.describedAt).isEmpty();
    }

    /** Time that passes only when waited for, recording each wait's end. */
    private static final class FakeClock implements DrainClock {
        final List<Long> waits = new ArrayList<>();
        long now = T0;

        @Override
        public long nowMillis() {
            return now;
        }

        @Override
        public void sleepUntil(long atMillis) {
            waits.add(atMillis);
            now = Math.max(now, atMillis);
        }
    }

    /** Answers DescribeExecution from a script (its last status again once it runs out), and no Map runs. */
    private static final class ScriptedSfn implements SfnClient {
        final Deque<ExecutionStatus> script;
        final List<Long> describedAt = new ArrayList<>();
        final DrainClock clock;

        ScriptedSfn(DrainClock clock, ExecutionStatus... statuses) {
            this.clock = clock;
            this.script = new ArrayDeque<>(List.of(statuses));
        }

        @Override
        public DescribeExecutionResponse describeExecution(DescribeExecutionRequest request) {
            describedAt.add(clock.nowMillis());
            return DescribeExecutionResponse.builder().executionArn(request.executionArn())
                    .status(script.size() > 1 ? script.removeFirst() : script.peekFirst()).build();
        }

        @Override
        public ListMapRunsResponse listMapRuns(ListMapRunsRequest request) {
            return ListMapRunsResponse.builder().build();
        }

        @Override
        public String serviceName() {
            return "states";
        }

        @Override
        public void close() {
        }
    }
}
