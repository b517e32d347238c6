package dev.trafficshaper.loadtest.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
    }

    @Test
    void anOutOfRangeBudgetOnTheCommandLineIsRefusedWithTheReasonBeforeAnythingRuns() {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = new CommandLine(new LoadTestCli()).execute("simulate", "--scenario", "seed-burst",
                    "--headroom-budget", "0");
        } finally {
            System.setErr(stderr);
        }
        assertThat(exit).isEqualTo(2);
        assertThat(captured.toString(StandardCharsets.UTF_8))
                .contains("headroomBudget must be a share of the calls in (0, 0.1], was 0.0");
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
