package dev.trafficshaper.loadtest.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Deployment;
import dev.trafficshaper.loadtest.scenario.LambdaModel;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.simulator.provider.Leniency;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The production drainer making the calls itself ({@code DispatchMode.INLINE}) in virtual time,
 * beside the same scenario dispatched asynchronously: the pacing holds, each request is one call,
 * and the Bedrock Processor's billed time is gone while the drainer's barely grows.
 *
 * <p>To let a 10-minute call end inside its invocation, an inline drainer hands off after 270 s
 * instead of 870 s. A hand-off cost 0.015–0.026 of utilization while the successor resumed the window
 * from 5 s buckets (each leaving a bucket late) and held the calls still in flight at their whole
 * reservation; it now resumes from 250 ms buckets and settles those calls from their statuses
 * ({@code PacerState.OpenCall}), and inline drains as fast as asynchronous dispatch.
 */
class InlineDispatchSimulationTest {

    private static final List<String> SCENARIOS = List.of("seed-burst", "at-quota", "spiky", "mixed-sizes",
            "long-latency-otpm");

    @Test
    void callsInTheDrainerKeepThePacingAndEndTheProcessorsWait() {
        for (String name : SCENARIOS) {
            Scenario inline = BuiltInScenarios.find(name).orElseThrow().withLeniency(Leniency.STRICT);
            Scenario async = inline.withDeployment(inline.deployment().withDispatchMode(DispatchMode.ASYNC));

            StrategyResult before = Simulation.run(async, List.of("shaper"), 42).get(0);
            StrategyResult after = Simulation.run(inline, List.of("shaper"), 42).get(0);

            assertThat(after.throttled()).as(name).isZero();
            assertThat(after.succeeded()).as(name).isEqualTo(after.requests());
            assertThat(after.apiCalls()).as(name).isEqualTo(after.requests());
            // (not utilization: it counts a call only while a request waits, and at-quota, whose
            // queue the successor's resumed bucket model now keeps empty, measures 0.806 inline
            // against 0.927 with the same drain; see the last test)
            assertThat(after.latencyP99Ms()).as(name + ": the hand-offs' cost").isLessThanOrEqualTo(
                    (long) (before.latencyP99Ms() * 1.015) + 1_000);
            // within 1.5%: with the spacing at twice the even rate while the window has room
            // (CatchUp), at-quota measured 611.3 s inline against 604.7 s
            assertThat(after.drainSeconds()).as(name + ": drains as fast").isLessThanOrEqualTo(
                    before.drainSeconds() * 1.015 + 1.0);
            DrainerActivity drainer = after.drainer();
            assertThat(drainer.dispatchMode()).isEqualTo("inline");
            assertThat(drainer.inlineCalls()).as(name + ": every call in the drainer").isEqualTo(after.requests());
            assertThat(drainer.dispatched()).as(name).isZero();
            assertThat(drainer.processorSeconds()).as(name).isZero();
            assertThat(before.drainer().processorSeconds()).as(name).isPositive();
            // each predecessor waits for its last calls after its hand-off: up to the scenario's latency
            assertThat(drainer.drainerSeconds()).as(name + ": the drainer waits for its last calls, no more")
                    .isLessThan(before.drainer().drainerSeconds() * 1.1 + 90.0 * drainer.handoffs());
        }
    }

    @Test
    void withoutAHandOffCallsInTheDrainerDrainAsWellAsDispatchedOnes() {
        for (String name : SCENARIOS) {
            // The strict bound, where the two paths agree to the call; with headroom on at-quota
            // measures lower inline for a reason the last test shows.
            Scenario base = BuiltInScenarios.find(name).orElseThrow().withLeniency(Leniency.STRICT);
            Scenario async = base.withShaper(base.shaper().toBuilder().headroom(false).build())
                    .withDeployment(base.deployment().withDispatchMode(DispatchMode.ASYNC));
            Scenario inline = async.withDeployment(new Deployment(LambdaModel.DEFAULT, 30, 100_000, List.of(),
                    DispatchMode.INLINE));

            StrategyResult before = Simulation.run(async, List.of("shaper"), 42).get(0);
            StrategyResult after = Simulation.run(inline, List.of("shaper"), 42).get(0);

            assertThat(after.drainer().handoffs()).as(name).isZero();
            assertThat(after.throttled()).as(name).isZero();
            assertThat(after.succeeded()).as(name).isEqualTo(after.requests());
            assertThat(after.utilization()).as(name).isGreaterThanOrEqualTo(before.utilization() - 0.005);
        }
    }

    /**
     * Why at-quota measures 0.012 lower inline with headroom on and no hand-off: utilization counts a
     * call only if some request still waits when it starts. There the bank and headroom's lift keep
     * the queue a few requests deep, and it empties for moments; an asynchronous call starts 40 ms
     * (median) after its slot, by when the next arrival usually waits, while an inline call starts
     * at its slot. The tokens and the drain time are the same; an instant dispatch measures about the
     * same (0.792 against 0.804 inline since the spacing fills the window at twice the even rate,
     * {@code CatchUp}; within 0.005 before).
     */
    @Test
    void atQuotaMeasuresLowerInlineOnlyBecauseItsCallsStartAtTheirSlot() {
        Scenario base = BuiltInScenarios.find("at-quota").orElseThrow().withLeniency(Leniency.STRICT);
        Scenario async = base.withDeployment(Deployment.dispatchingAsync(LambdaModel.DEFAULT, 30, 100_000, List.of()));
        Scenario instant = base.withDeployment(Deployment.dispatchingAsync(new LambdaModel(0, 0, 0, 600, 1_000), 30, 100_000,
                List.of()));
        Scenario inline = async.withDeployment(async.deployment().withDispatchMode(DispatchMode.INLINE));

        StrategyResult dispatched = Simulation.run(async, List.of("shaper"), 42).get(0);
        StrategyResult dispatchedAtOnce = Simulation.run(instant, List.of("shaper"), 42).get(0);
        StrategyResult called = Simulation.run(inline, List.of("shaper"), 42).get(0);

        assertThat(called.utilization()).isLessThan(dispatched.utilization() - 0.008);
        assertThat(dispatchedAtOnce.utilization()).isLessThan(dispatched.utilization() - 0.008);
        assertThat(called.utilization()).isCloseTo(dispatchedAtOnce.utilization(), within(0.015));
        assertThat(called.drainSeconds()).isCloseTo(dispatched.drainSeconds(), within(1.0));
        assertThat(Arrays.stream(called.deliveredPerMinute()).sum())
                .isEqualTo(Arrays.stream(dispatched.deliveredPerMinute()).sum());
    }

    @Test
    void aDrainerThatCrashesMidCallLeavesEveryRequestTerminalAndNoneCalledTwice() {
        Scenario scenario = BuiltInScenarios.find("at-quota").orElseThrow();
        Deployment crashing = new Deployment(LambdaModel.DEFAULT, 30, 870, List.of(200L), DispatchMode.INLINE);

        StrategyResult shaper = Simulation.run(scenario.withDeployment(crashing), List.of("shaper"), 42).get(0);

        DrainerActivity drainer = shaper.drainer();
        assertThat(drainer.crashes()).isEqualTo(1);
        assertThat(drainer.inlineCalls()).isPositive();
        assertThat(shaper.succeeded() + shaper.failed()).isEqualTo(shaper.requests());
        assertThat(shaper.apiCalls()).as("a call lost with its drainer is never sent again")
                .isLessThanOrEqualTo(shaper.requests());
        assertThat(shaper.throttled()).isZero();
    }
}
