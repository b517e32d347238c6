package dev.trafficshaper.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.OutcomeStatus;
import dev.trafficshaper.quota.Quota;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArmMeasurementTest {

    private static final Quota QUOTA = new Quota(100_000, 0, 0, 0, 5);

    @Test
    void percentilesComeFromEveryRawLatencyOfEveryWorkerNotFromAveragedPercentiles() {
        // worker 0 answers everything in 1 s, worker 1 in 10 s: averaging each worker's p50 would say 5.5 s
        List<ReconciledRequest> requests = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            long latency = i % 2 == 0 ? 1_000 : 10_000;
            requests.add(succeeded(i, i * 100L, latency, 1_000, 100));
        }

        ArmMeasurement m = ArmMeasurement.of(ArmKind.DIRECT, requests, QUOTA);

        assertThat(m.latencyP50Ms()).isBetween(999L, 1_001L);
        assertThat(m.latencyP95Ms()).isBetween(9_990L, 10_010L);
        assertThat(m.latencyP99Ms()).isBetween(9_990L, 10_010L);
    }

    @Test
    void deliveredTokensAreQuotaChargedTokensOfSuccessesByTheMinuteTheirCallBegan() {
        List<ReconciledRequest> requests = List.of(
                succeeded(0, 0, 2_000, 1_000, 100),
                succeeded(1, 61_000, 2_000, 1_000, 100),
                failed(2, 61_500, 1_000),
                lost(3, 62_000));

        ArmMeasurement m = ArmMeasurement.of(ArmKind.DIRECT, requests, QUOTA);

        long charged = 1_000 + 100 * 5;
        assertThat(m.deliveredPerMinute()).containsExactly(charged, charged);
        assertThat(m.deliveredTokens()).isEqualTo(2 * charged);
        assertThat(m.succeeded()).isEqualTo(2);
        assertThat(m.failed()).isEqualTo(1);
        assertThat(m.lost()).isEqualTo(1);
        assertThat(m.successRate()).isEqualTo(0.5);
        assertThat(m.failureReasons()).containsEntry("ThrottlingException", 1L);
        // busy from the first arrival (0) to the last successful call's start (61 s)
        assertThat(m.utilization()).isEqualTo(Math.round(2.0 * charged / (100_000 * 61.0 / 60) * 10_000) / 10_000.0);
        assertThat(m.drainSeconds()).isEqualTo(63.0);
    }

    @Test
    void theQueueDepthCountsRequestsWaitingForTheirFirstCall() {
        List<ReconciledRequest> requests = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            requests.add(new ReconciledRequest("shaper", "id" + i, i, 0, 0L, 5_000L * (i + 1), 5_000L * (i + 1),
                    5_000L * (i + 1) + 1_000, ReconciledRequest.SUCCEEDED, OutcomeStatus.SUCCEEDED, null, 200, 1, 0,
                    100, 10, 0, 0));
        }

        long[] depth = ArmMeasurement.of(ArmKind.SHAPER, requests, QUOTA).queueDepthPerSecond();

        assertThat(depth[0]).isEqualTo(3);
        assertThat(depth[5]).isEqualTo(2);
        assertThat(depth[10]).isEqualTo(1);
        assertThat(depth[15]).isZero();
    }

    private static ReconciledRequest succeeded(int index, long arrival, long latency, long input, long output) {
        return new ReconciledRequest("direct", "id" + index, index, arrival, arrival, arrival, arrival,
                arrival + latency, ReconciledRequest.SUCCEEDED, OutcomeStatus.SUCCEEDED, null, 200, 1, 0, input, output,
                0, 0);
    }

    private static ReconciledRequest failed(int index, long arrival, long latency) {
        return new ReconciledRequest("direct", "id" + index, index, arrival, arrival, arrival, arrival,
                arrival + latency, ReconciledRequest.FAILED, OutcomeStatus.FAILED, "ThrottlingException", 429, 1, 1, 0,
                0, 0, 0);
    }

    private static ReconciledRequest lost(int index, long arrival) {
        return new ReconciledRequest("direct", "id" + index, index, arrival, null, null, null, null,
                ReconciledRequest.LOST, null, null, null, 0, 0, 0, 0, 0, 0);
    }
}
