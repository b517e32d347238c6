package dev.trafficshaper.loadtest.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.loadtest.report.ResultFile;
import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.strategy.Strategies;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class SimulationTest {

    private static Map<String, StrategyResult> byName(List<StrategyResult> results) {
        return results.stream().collect(Collectors.toMap(StrategyResult::strategy, Function.identity()));
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
        Scenario scenario = BuiltInScenarios.find("mixed-sizes").orElseThrow();

        String first = ResultFile.render(scenario, 7, Simulation.run(scenario, Strategies.names(), 7));
        String second = ResultFile.render(scenario, 7, Simulation.run(scenario, Strategies.names(), 7));
        String otherSeed = ResultFile.render(scenario, 8, Simulation.run(scenario, Strategies.names(), 8));

        assertThat(second).isEqualTo(first);
        assertThat(otherSeed).isNotEqualTo(first);
    }

    @ParameterizedTest
    @EnumSource(QuotaModel.class)
    void shaperNeverThrottlesAndBeatsTheWindowPacerUnderStrictMetering(QuotaModel model) {
        for (String name : BuiltInScenarios.names()) {
            Scenario scenario = BuiltInScenarios.find(name).orElseThrow()
                    .withQuotaModel(model).withLeniency(Leniency.STRICT);

            Map<String, StrategyResult> r = byName(Simulation.run(scenario, List.of("window-pacer", "shaper"), 42));

            StrategyResult shaper = r.get("shaper");
            assertThat(shaper.throttled()).as("%s under %s", name, model).isZero();
            assertThat(shaper.succeeded()).as(name).isEqualTo(shaper.requests());
            assertThat(shaper.utilization()).as(name).isGreaterThanOrEqualTo(r.get("window-pacer").utilization());
        }
    }

    @Test
    void whereReservationsDoNotBindTheShaperDeliversAtLeastNinetyFivePercent() {
        for (String name : List.of("seed-burst", "at-quota", "spiky", "extreme-spike", "steady-spike", "mixed-sizes")) {
            Scenario scenario = BuiltInScenarios.find(name).orElseThrow();
            for (QuotaModel model : QuotaModel.values()) {
                StrategyResult shaper = Simulation.run(scenario.withQuotaModel(model), List.of("shaper"), 42).get(0);
                assertThat(shaper.utilization()).as("%s under %s", name, model).isGreaterThanOrEqualTo(0.95);
            }
        }
    }
}
