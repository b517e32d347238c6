package dev.trafficshaper.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.sim.Simulation;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.loadtest.strategy.Strategies;
import dev.trafficshaper.simulator.provider.Leniency;
import java.util.List;
import org.junit.jupiter.api.Test;

class ComparisonTableTest {

    private static final Scenario RPM = BuiltInScenarios.find("rpm-bound-small").orElseThrow()
            .withLeniency(Leniency.STRICT);

    @Test
    void everyRowSaysHowManyTimesTheOraclesDrainItTookAndItsUtilizationPerDimension() {
        List<StrategyResult> results = Simulation.run(RPM, List.of("direct-no-retry", Strategies.ORACLE), 42);

        String table = ComparisonTable.render(results);

        assertThat(table).contains("vs oracle");
        String oracleRow = table.lines().filter(l -> l.startsWith("oracle")).findFirst().orElseThrow();
        assertThat(oracleRow).contains("1.00x").containsPattern("rpm 1\\.\\d{3} tpm 0\\.\\d{3}");
        String directRow = table.lines().filter(l -> l.startsWith("direct-no-retry")).findFirst().orElseThrow();
        assertThat(directRow).containsPattern(" 0\\.\\d\\dx ");
    }

    @Test
    void withoutTheOracleTheColumnIsADash() {
        List<StrategyResult> results = Simulation.run(RPM, List.of("direct-no-retry"), 42);

        assertThat(ComparisonTable.render(results).lines().skip(2).findFirst().orElseThrow()).contains(" — ");
    }

    @Test
    void resultJsonCarriesTheOraclesDrainAndEachStrategysMultipleOfIt() {
        List<StrategyResult> results = Simulation.run(RPM, List.of("direct-no-retry", Strategies.ORACLE), 42);

        String json = ResultFile.render(RPM, 42, results);

        assertThat(json).contains("\"oracleDrainSeconds\"").contains("\"vsOracle\" : 1.0")
                .contains("\"dimensionUtilization\"").contains("\"rpm\"");
    }

    @Test
    void theSweepPrintsOneTablePerMeterAndTheWallTimes() {
        List<StrategyResult> results = Simulation.run(RPM, List.of("direct-no-retry", Strategies.ORACLE), 42);
        List<SweepTable.ScenarioRun> runs = List.of(new SweepTable.ScenarioRun("rpm-bound-small", "token-bucket",
                results, 1.5));

        assertThat(SweepTable.markdown("token-bucket", runs)).contains("| rpm-bound-small | oracle |")
                .contains("| 1.00x |");
        assertThat(SweepTable.markdown("fixed-window", runs)).doesNotContain("rpm-bound-small");
        assertThat(SweepTable.wallTimes(List.of("token-bucket"), runs)).contains("| rpm-bound-small |").contains("1.5");
    }
}
