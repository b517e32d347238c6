package dev.trafficshaper.loadtest.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.report.ResultFile;
import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Deployment;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.strategy.Strategies;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SimulationTest {

    /**
     * The shaper's utilization in the README before the simulator ran the production drainer (the
     * look-alike that called the pacer directly, on zero-delay dispatch and instant settlement).
     * The production drainer may trail it by at most 0.01 with the default deployment.
     */
    private static final Map<String, Double> LOOK_ALIKE_UTILIZATION = Map.of(
            "seed-burst", 0.965, "at-quota", 0.968, "spiky", 0.970, "extreme-spike", 0.965,
            "steady-spike", 0.969, "mixed-sizes", 0.952, "long-latency-otpm", 0.838);

    /**
     * Where the production drainer holds a figure of its own. over-reservation (maxTokens 16,384,
     * answers of ~650): the window holds each call's whole reservation until its settlement reaches
     * the drainer, and in production that is after the dispatch delay, the answer, the status write
     * and the next 500 ms poll, where the look-alike (0.676) settled the moment the answer came. The
     * spacing charges the learnt output share (OutputShare), so the poll's batches of refunds are no
     * longer lost to it (0.234 before).
     */
    private static final Map<String, Double> PRODUCTION_UTILIZATION = Map.of("over-reservation", 0.651);

    /**
     * The look-alike ran the built-in scenarios at target 0.98; they now run with the production
     * default (0.95), so its figures are scaled by the ratio of the targets.
     */
    private static final double TARGET_RATIO = BuiltInScenarios.SHAPER.targetUtilization() / 0.98;

    /** The nine scenarios the look-alike's figures were measured on (the later ones have their own tests). */
    private static final List<String> LOOK_ALIKE_SCENARIOS = List.of("seed-burst", "at-quota", "spiky",
            "extreme-spike", "steady-spike", "mixed-sizes", "over-reservation", "long-latency-otpm", "heavy-tenant");

    private static double heldTo(double lookAlike) {
        return lookAlike * TARGET_RATIO - 0.01;
    }

    /** The scenario with its shaper held to the strict bound (headroom off). */
    private static Scenario strictBound(Scenario scenario) {
        return scenario.withShaper(scenario.shaper().toBuilder().headroom(false).build());
    }

    /**
     * The same with headroom on, as a user gets it: every request served, at most 1% extra calls
     * (throttled probes), and never below the strict bound's utilization by more than 0.01 unless it
     * drains sooner than the strict bound.
     */
    @ParameterizedTest
    @EnumSource(QuotaModel.class)
    void withHeadroomTheShaperSpendsAtLeastTheStrictBoundWithinOnePercentExtraCalls(QuotaModel model) {
        for (String name : LOOK_ALIKE_SCENARIOS) {
            Scenario scenario = BuiltInScenarios.find(name).orElseThrow()
                    .withQuotaModel(model).withLeniency(Leniency.STRICT);

            StrategyResult shaper = Simulation.run(scenario, List.of("shaper"), 42).get(0);

            String run = name + " under " + model + ", headroom on";
            assertThat(shaper.succeeded()).as(run).isEqualTo(shaper.requests());
            assertThat(shaper.throttled()).as(run).isLessThanOrEqualTo(shaper.requests() / 100);
            assertThat(shaper.apiCalls()).as(run).isLessThanOrEqualTo(shaper.requests() + shaper.requests() / 100);
            Double strict = LOOK_ALIKE_UTILIZATION.getOrDefault(name, PRODUCTION_UTILIZATION.get(name));
            if (strict != null && shaper.utilization() < heldTo(strict)) {
                // utilisation counts a call only while a request waits as it starts: a shaper that
                // catches up empties the queue for moments (at-quota under the token bucket, where
                // CatchUp fills the window at twice the even rate); then it must drain no slower
                StrategyResult bound = Simulation.run(scenario.withShaper(scenario.shaper().toBuilder()
                        .headroom(false).build()), List.of("shaper"), 42).get(0);
                assertThat(shaper.drainSeconds()).as(run + ": below the strict bound's utilisation, so no slower")
                        .isLessThanOrEqualTo(bound.drainSeconds());
            }
        }
    }

    private static Map<String, StrategyResult> byName(List<StrategyResult> results) {
        return results.stream().collect(Collectors.toMap(StrategyResult::strategy, Function.identity()));
    }

    /**
     * Fixed-window extreme-spike at seed 45: the oracle packs the backlog into the spike's five clock
     * minutes. The shaper's first minute was held by its 60 s window at 0.98 of the quota while
     * headroom stepped forgiveness over calls long settled (3.966M of the oracle's 3.997M), and the
     * backlog's last 7k tokens spilled into a sixth minute; the lift steps there now.
     */
    @Test
    void theSpikesFirstMinuteTakesWhatTheOracleTakesSoTheBacklogFitsItsMinutes() {
        Scenario spike = BuiltInScenarios.find("extreme-spike").orElseThrow()
                .withQuotaModel(QuotaModel.FIXED_WINDOW).withLeniency(Leniency.STRICT);

        Map<String, StrategyResult> r = byName(Simulation.run(spike, List.of("shaper", "oracle"), 45));

        long[] shaper = r.get("shaper").deliveredPerMinute();
        long[] oracle = r.get("oracle").deliveredPerMinute();
        assertThat(oracle[2]).as("the spike's first minute, the oracle").isPositive();
        assertThat(shaper[2]).as("the spike's first minute").isGreaterThanOrEqualTo(oracle[2] * 999 / 1_000);
        assertThat(shaper).as("minutes with calls started").hasSameSizeAs(oracle);
    }

    /**
     * Fixed-window background-quarter at seed 43: another application takes a quarter of every
     * minute, so the meter refuses the shaper at 0.75 of the quota, which the quota alone never
     * explained. The clock minute was never learnt, every minute went at the even pace, and the
     * last one spilled into an eleventh (1.109× the oracle). Read against the level the meter
     * refused at, the minute is learnt (with the level pinned at the quota this fails), and a
     * refusal once a trusted minute's account is full no longer withdraws the trust (1.104× when it
     * did): the last minute is spent from its turn.
     */
    @Test
    void withAQuarterOfTheQuotaTakenUnseenTheFixedWindowIsStillLearntAndTheLastMinuteFits() {
        Scenario quarter = BuiltInScenarios.find("background-quarter").orElseThrow()
                .withQuotaModel(QuotaModel.FIXED_WINDOW).withLeniency(Leniency.STRICT);

        Map<String, StrategyResult> r = byName(Simulation.run(quarter, List.of("shaper", "oracle"), 43));

        StrategyResult shaper = r.get("shaper");
        assertThat(shaper.drainSeconds()).as("within 1.06x the oracle (1.109x before)")
                .isLessThanOrEqualTo(r.get("oracle").drainSeconds() * 1.06);
        assertThat(shaper.succeeded()).isEqualTo(shaper.requests());
        assertThat(shaper.apiCalls()).as("at most 1%% extra calls").isLessThanOrEqualTo(shaper.requests() * 101 / 100);
    }

    @Test
    void seedBurstReproducesThePublishedShapeOfTheExperiment() {
        Scenario seedBurst = BuiltInScenarios.find("seed-burst").orElseThrow();

        Map<String, StrategyResult> r = byName(Simulation.run(seedBurst, Strategies.names(), 42));

        StrategyResult shaper = r.get("shaper");
        assertThat(shaper.succeeded()).isEqualTo(1_000);
        assertThat(shaper.throttled()).isZero();
        assertThat(shaper.apiCalls()).isEqualTo(1_000);
        StrategyResult noRetry = r.get("direct-no-retry");
        assertThat(noRetry.successRate()).isBetween(0.60, 0.85);
        StrategyResult retry = r.get("direct-retry-jitter");
        assertThat(retry.successRate()).isLessThan(noRetry.successRate());
        assertThat(retry.apiCalls()).isGreaterThanOrEqualTo(2 * retry.requests());
    }

    @Test
    void theSameSeedGivesByteIdenticalResults() {
        Scenario scenario = BuiltInScenarios.find("mixed-sizes").orElseThrow()
                .withDeployment(Deployment.pessimistic(150));

        String first = ResultFile.render(scenario, 7, Simulation.run(scenario, Strategies.names(), 7));
        String second = ResultFile.render(scenario, 7, Simulation.run(scenario, Strategies.names(), 7));
        String otherSeed = ResultFile.render(scenario, 8, Simulation.run(scenario, Strategies.names(), 8));

        assertThat(second).isEqualTo(first);
        assertThat(otherSeed).isNotEqualTo(first);
    }

    /**
     * Every built-in scenario under strict metering with the deployment's default surroundings: no
     * throttle, every request served with one call, at least the window pacer's utilization, and
     * within 0.01 of what the look-alike reached (or of the production figure where it holds its own),
     * scaled to the production target.
     */
    @ParameterizedTest
    @EnumSource(QuotaModel.class)
    void theProductionDrainerNeverThrottlesAndKeepsTheLookAlikesUtilization(QuotaModel model) {
        for (String name : LOOK_ALIKE_SCENARIOS) {
            Scenario scenario = BuiltInScenarios.find(name).orElseThrow()
                    .withQuotaModel(model).withLeniency(Leniency.STRICT);
            scenario = strictBound(scenario);

            Map<String, StrategyResult> r = byName(Simulation.run(scenario, List.of("window-pacer", "shaper"), 42));

            StrategyResult shaper = r.get("shaper");
            String run = name + " under " + model;
            assertThat(shaper.throttled()).as(run).isZero();
            assertThat(shaper.succeeded()).as(run).isEqualTo(shaper.requests());
            assertThat(shaper.apiCalls()).as(run).isEqualTo(shaper.requests());
            assertThat(shaper.utilization()).as(run).isGreaterThanOrEqualTo(r.get("window-pacer").utilization());
            Double before = LOOK_ALIKE_UTILIZATION.getOrDefault(name, PRODUCTION_UTILIZATION.get(name));
            assertThat(before != null || name.equals("heavy-tenant"))
                    .as("%s has a figure to hold", name).isTrue();
            if (before != null) {
                assertThat(shaper.utilization()).as(run).isGreaterThanOrEqualTo(heldTo(before));
            }
        }
    }

    /**
     * The same on a slow day (dispatch p99 2 s, 2 s cold starts, settlements 500 ms late, a
     * handoff every 2 minutes, one drainer crash): no throttle, one call per request, and every
     * request served. The crashed drainer's admissions written ahead of their slot, which no
     * processor was sent, are found by the sweeper and dispatched again.
     */
    @ParameterizedTest
    @EnumSource(QuotaModel.class)
    void onASlowDayWithACrashTheDrainerStillNeverThrottles(QuotaModel model) {
        for (String name : LOOK_ALIKE_SCENARIOS) {
            Scenario scenario = BuiltInScenarios.find(name).orElseThrow()
                    .withQuotaModel(model).withLeniency(Leniency.STRICT);
            scenario = strictBound(scenario);
            Scenario pessimistic = scenario.withDeployment(Deployment.pessimistic(scenario.arrivalSeconds() / 2));

            StrategyResult shaper = Simulation.run(pessimistic, List.of("shaper"), 42).get(0);

            String run = name + " under " + model + ", pessimistic";
            assertThat(shaper.throttled()).as(run).isZero();
            assertThat(shaper.drainer().crashes()).as(run).isEqualTo(1);
            assertThat(shaper.succeeded()).as(run).isEqualTo(shaper.requests());
            assertThat(shaper.apiCalls()).as(run).isEqualTo(shaper.succeeded());
        }
    }

    @Test
    void aCrashedDrainersAdmissionsAreAllServed() {
        Scenario scenario = BuiltInScenarios.find("at-quota").orElseThrow()
                .withDeployment(Deployment.pessimistic(300));

        StrategyResult shaper = Simulation.run(scenario, List.of("shaper"), 42).get(0);

        assertThat(shaper.succeeded()).isEqualTo(shaper.requests());
    }

    @Test
    void aDrainerThatCrashesIsReplacedOnceItsLeaseExpires() {
        Scenario scenario = BuiltInScenarios.find("at-quota").orElseThrow()
                .withDeployment(Deployment.pessimistic(200));

        StrategyResult shaper = Simulation.run(scenario, List.of("shaper"), 42).get(0);

        DrainerActivity drainer = shaper.drainer();
        assertThat(drainer.crashes()).isEqualTo(1);
        assertThat(drainer.handoffs()).as("a drainer every 2 minutes over 10 minutes").isGreaterThanOrEqualTo(4);
        assertThat(shaper.succeeded() + shaper.failed()).isEqualTo(shaper.requests());
        assertThat(shaper.throttled()).isZero();
    }

    @Test
    void lightTenantsWaitAtMostHalfAsLongAsTheHeavyOne() {
        Scenario scenario = BuiltInScenarios.find("heavy-tenant").orElseThrow();

        StrategyResult shaper = Simulation.run(scenario, List.of("shaper"), 42).get(0);

        Map<String, GroupWait> tenants = shaper.tenants().stream()
                .collect(Collectors.toMap(GroupWait::group, Function.identity()));
        GroupWait heavy = tenants.get("tenant-0");
        assertThat(heavy.requests()).isGreaterThan(4 * tenants.get("tenant-1").requests());
        for (String light : List.of("tenant-1", "tenant-2", "tenant-3", "tenant-4")) {
            assertThat(tenants.get(light).waitP50Ms()).as(light).isLessThanOrEqualTo(heavy.waitP50Ms() / 2);
        }
    }

    @Test
    void waitsAreReportedPerLaneAndPerTenant() {
        Scenario scenario = BuiltInScenarios.find("mixed-sizes").orElseThrow();

        StrategyResult shaper = Simulation.run(scenario, List.of("shaper"), 42).get(0);

        assertThat(shaper.lanes()).extracting(GroupWait::group).containsExactly("interactive", "bulk");
        assertThat(shaper.tenants()).extracting(GroupWait::group).containsExactly("tenant-0", "tenant-1", "tenant-2");
        assertThat(shaper.lanes().stream().mapToLong(GroupWait::requests).sum()).isEqualTo(shaper.requests());
        assertThat(shaper.tenants().stream().mapToLong(GroupWait::requests).sum()).isEqualTo(shaper.requests());
        GroupWait interactive = shaper.lanes().get(0);
        GroupWait bulk = shaper.lanes().get(1);
        assertThat(interactive.waitP99Ms()).as("the interactive reserve").isLessThan(bulk.waitP50Ms());
        assertThat(shaper.waitP50Ms()).isLessThanOrEqualTo(shaper.latencyP50Ms());
    }
}
