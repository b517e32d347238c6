package dev.trafficshaper.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.scenario.Scenario;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerSizingTest {

    /** 1,000 requests in 10 s: 100/s at the peak; a call is (400 + 5 × 200) × 1.1 = 1.54 s. */
    private final Scenario scenario = TestRuns.burst(1_000);
    private final RunSchedule schedule = RunSchedule.of(scenario, 42);

    @Test
    void workersFollowLittlesLawOverTheArmsHoldingTimes() {
        WorkerSizing sizing = WorkerSizing.of(schedule, scenario, List.of(ArmKind.DIRECT, ArmKind.SHAPER), 50);

        double peak = schedule.peakRatePerSecond(10_000);
        assertThat(peak).isEqualTo(100.0);
        assertThat(sizing.holdSeconds().get(ArmKind.DIRECT)).isEqualTo(1.54, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(sizing.heldAtOnce()).isEqualTo(100 * (1.54 + WorkerSizing.SUBMIT_SECONDS),
                org.assertj.core.data.Offset.offset(1e-6));
        assertThat(sizing.workers()).isEqualTo(4);
        assertThat(sizing.explain()).contains("4 workers by Little's law", "peak 100.0 requests/s", "50 per worker");
    }

    @Test
    void retriesHoldARequestForEveryAttemptAndItsBackoff() {
        WorkerSizing direct = WorkerSizing.of(schedule, scenario, List.of(ArmKind.DIRECT), 1_000);
        WorkerSizing retry = WorkerSizing.of(schedule, scenario, List.of(ArmKind.RETRY_JITTER), 1_000);

        assertThat(retry.holdSeconds().get(ArmKind.RETRY_JITTER))
                .isEqualTo(4 * direct.holdSeconds().get(ArmKind.DIRECT) + 7, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(direct.workers()).isEqualTo(1);
    }

    @Test
    void neverMoreWorkersThanRequests() {
        RunSchedule three = RunSchedule.of(TestRuns.burst(3), 42);
        assertThat(WorkerSizing.of(three, scenario, List.of(ArmKind.RETRY_JITTER), 1).workers()).isEqualTo(3);
    }
}
