package dev.trafficshaper.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.sim.StrategyResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SeedSweepTableTest {

    @Test
    void eachRowGivesTheMeanAndWorstMultipleOfTheSameSeedsOracle() {
        List<SeedSweepTable.SeededRun> runs = List.of(
                run(1, "token-bucket", "spiky", result("shaper", 102, 1_000, 1_000, 3), result("oracle", 100, 1_000, 1_000, 0)),
                run(2, "token-bucket", "spiky", result("shaper", 220, 1_000, 1_010, 5), result("oracle", 200, 1_000, 1_000, 0)));

        String table = SeedSweepTable.markdown("token-bucket", runs);

        assertThat(row(table, "spiky", "shaper")).isEqualTo("| spiky | shaper | 1.060x | 1.100x | 4.0 | 1.01 | 100.0% | — |");
        assertThat(row(table, "spiky", "oracle")).startsWith("| spiky | oracle | 1.000x | 1.000x | 0.0 |");
        assertThat(table).contains("shaper: above 1.10x the oracle in 0 of 2 runs\n"); // no sdk-adaptive: no comparison
    }

    @Test
    void theShaperIsComparedWithTheSdkOnlyWhereTheSdkKeptNinetyNinePercent() {
        List<SeedSweepTable.SeededRun> runs = List.of(
                // kept 99.5%, drained sooner: the shaper was slower
                run(1, "fixed-window", "at-quota", result("shaper", 105, 1_000, 1_000, 0),
                        result("sdk-adaptive", 104, 995, 1_200, 90), result("oracle", 100, 1_000, 1_000, 0)),
                // kept 99.5%, drained later: the shaper was not
                run(2, "fixed-window", "at-quota", result("shaper", 105, 1_000, 1_000, 0),
                        result("sdk-adaptive", 106, 995, 1_200, 90), result("oracle", 100, 1_000, 1_000, 0)),
                // lost 2%: no comparison, however soon it drained
                run(3, "fixed-window", "at-quota", result("shaper", 112, 1_000, 1_000, 0),
                        result("sdk-adaptive", 90, 980, 1_200, 90), result("oracle", 100, 1_000, 1_000, 0)));

        String table = SeedSweepTable.markdown("fixed-window", runs);

        assertThat(row(table, "at-quota", "shaper")).endsWith("| 1 of 2 |");
        assertThat(row(table, "at-quota", "sdk-adaptive")).endsWith("| 98.0% | — |");
        assertThat(table).contains("shaper: above 1.10x the oracle in 1 of 3 runs; slower than sdk-adaptive in 1 of the"
                + " 2 runs where it kept >= 99%");
    }

    @Test
    void otherQuotaModelsRunsAreLeftOut() {
        List<SeedSweepTable.SeededRun> runs = List.of(
                run(1, "sliding-window", "spiky", result("shaper", 300, 1_000, 1_000, 0), result("oracle", 100, 1_000, 1_000, 0)));

        assertThat(SeedSweepTable.markdown("token-bucket", runs)).doesNotContain("spiky").doesNotContain("shaper:");
    }

    private static String row(String table, String scenario, String strategy) {
        return table.lines().filter(l -> l.startsWith("| " + scenario + " | " + strategy + " |")).findFirst().orElseThrow();
    }

    private static SeedSweepTable.SeededRun run(long seed, String model, String scenario, StrategyResult... results) {
        return new SeedSweepTable.SeededRun(seed, new SweepTable.ScenarioRun(scenario, model, List.of(results), 0.1));
    }

    private static StrategyResult result(String strategy, double drainSeconds, long succeeded, long apiCalls,
            long throttled) {
        return new StrategyResult(strategy, 1_000, succeeded, 1_000 - succeeded, throttled, apiCalls, 0, 0, 0,
                drainSeconds, 0.9, new long[0], new long[0], new long[0], 0, 0, List.of(), List.of(), null,
                Map.of("tpm", 0.9));
    }
}
