package dev.trafficshaper.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.pacing.Lane;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowPlanTest {

    private static final long START = 1_000_000_000_000L;

    @Test
    void eachWorkerGetsOneItemPerWindowInWhichItHasArrivals() {
        List<ScheduledRequest> requests = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            requests.add(new ScheduledRequest(i, i * 200_000L, 100, 10, 20, Lane.BULK));
        }
        RunSchedule schedule = RunSchedule.of(requests);

        WindowPlan plan = WindowPlan.of(schedule, 2, 600_000, 60_000, 120_000, START);

        // arrivals at 0, 200, 400 s (window 0) and 600, 800, 1000 s (window 1); workers take even and odd indexes
        assertThat(plan.items()).extracting(SliceItem::worker, SliceItem::window).containsExactly(
                org.assertj.core.groups.Tuple.tuple(0, 0), org.assertj.core.groups.Tuple.tuple(1, 0),
                org.assertj.core.groups.Tuple.tuple(0, 1), org.assertj.core.groups.Tuple.tuple(1, 1));
        SliceItem second = plan.items().get(2);
        assertThat(second.fromMillis()).isEqualTo(600_000);
        assertThat(second.untilMillis()).isEqualTo(1_000_001);
        assertThat(second.startAt()).isEqualTo(java.time.Instant.ofEpochMilli(START + 540_000).toString());
        assertThat(second.stopAtEpochMillis()).isEqualTo(START + 1_000_001 + 120_000);
        assertThat(second.writerName()).isEqualTo("w0-t1");
        int played = 0;
        for (SliceItem item : plan.items()) {
            played += schedule.slice(item.worker(), item.workers(), item.fromMillis(), item.untilMillis()).size();
        }
        assertThat(played).isEqualTo(6);
    }

    @Test
    void anItemMustFitInOneLambdaInvocation() {
        RunSchedule schedule = RunSchedule.of(List.of(new ScheduledRequest(0, 0, 100, 10, 20, Lane.BULK)));
        assertThatThrownBy(() -> WindowPlan.of(schedule, 1, 13 * 60_000, 60_000, 120_000, START))
                .hasMessageContaining("--window-minutes");
    }

    @Test
    void theCostEstimateBoundsBedrockByEverySuccessAndTheWorkersByTheirWholeSlots() {
        List<ScheduledRequest> requests = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            requests.add(new ScheduledRequest(i, i * 30L, 18_000, 500, 1_000, Lane.BULK));
        }
        RunSchedule schedule = RunSchedule.of(requests);
        WindowPlan plan = WindowPlan.of(schedule, 2, 600_000, 60_000, 120_000, START);
        CostEstimate.Prices prices = CostEstimate.Prices.defaults(0.06, 0.24);

        CostEstimate cost = CostEstimate.of(schedule, List.of(ArmKind.DIRECT, ArmKind.SHAPER), plan, 2_048, 30, prices);

        // 18M input tokens at $0.06/M and 0.5M output at $0.24/M per arm
        assertThat(cost.lines().get(0).usd()).isEqualTo(18 * 0.06 + 0.5 * 0.24, org.assertj.core.data.Offset.offset(1e-9));
        // two items of 60 + 30 + 120 s at 2 GB
        double gbSeconds = 2 * (60 + 29.971 + 120) * 2;
        assertThat(cost.lines().get(2).usd()).isEqualTo(gbSeconds * 0.0000133334 + 2 / 1e6 * 0.20,
                org.assertj.core.data.Offset.offset(1e-9));
        assertThat(cost.lines()).extracting(CostEstimate.Line::item).contains("the shaper stack itself");
        assertThat(cost.lines().get(cost.lines().size() - 1).usd()).isEqualTo(0.0626, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(cost.render(prices)).contains("Bedrock at $0.06 / $0.24 per million", "total");
        assertThat(cost.totalUsd()).isGreaterThan(2 * (18 * 0.06 + 0.5 * 0.24));
    }
}
