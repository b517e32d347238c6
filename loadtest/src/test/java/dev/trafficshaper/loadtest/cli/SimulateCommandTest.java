package dev.trafficshaper.loadtest.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Scenario;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimulateCommandTest {

    private final Scenario scenario = BuiltInScenarios.find("seed-burst").orElseThrow();

    @Test
    void headroomIsOnAsAUserGetsItAndCanBeSwitchedOffForTheStrictBound() {
        assertThat(scenario.shaper().headroom()).isTrue();
        assertThat(SimulateCommand.withHeadroom(scenario, "off").shaper().headroom()).isFalse();
        assertThat(SimulateCommand.withHeadroom(scenario, "on").shaper().headroom()).isTrue();
        assertThat(SimulateCommand.withHeadroom(scenario, "off").shaper().targetUtilization())
                .isEqualTo(scenario.shaper().targetUtilization());
    }

    @Test
    void theBudgetOfExtraCallsIsTheProductionDefaultUnlessSet() {
        assertThat(scenario.shaper().headroomBudget()).isEqualTo(0.01);
        assertThat(SimulateCommand.withHeadroomBudget(scenario, 0.02).shaper().headroomBudget()).isEqualTo(0.02);
        assertThat(SimulateCommand.withHeadroomBudget(scenario, 0.02).shaper().headroom()).isTrue();
        assertThatThrownBy(() -> SimulateCommand.withHeadroomBudget(scenario, 0.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(0, 0.1]");
        assertThat(new CommandLine(new LoadTestCli()).execute("simulate", "--scenario", "seed-burst",
                "--headroom-budget", "0")).as("refused before anything runs").isEqualTo(2);
    }

    @Test
    void seedsAreACountAndMoreThanOneOnlyForTheSweep() {
        CommandLine cli = new CommandLine(new LoadTestCli());

        assertThat(cli.execute("simulate", "--scenario", "seed-burst", "--seeds", "3")).isEqualTo(2);
        assertThat(cli.execute("simulate", "--all", "--seeds", "0")).isEqualTo(2);
    }

    @Test
    void anythingElseIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> SimulateCommand.withHeadroom(scenario, "maybe"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("on or off");
    }
}
