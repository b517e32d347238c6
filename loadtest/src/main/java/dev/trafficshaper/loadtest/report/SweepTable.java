package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.sim.StrategyResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables of {@code simulate --all}: one Markdown table per quota model, every scenario and
 * strategy (drain, vs oracle, utilization per dimension, throttles, calls per request, success),
 * and the wall time each scenario took under each model.
 */
public final class SweepTable {

    /** One scenario run under one quota model: its strategies' results and the wall time they took. */
    public record ScenarioRun(String scenario, String quotaModel, List<StrategyResult> results, double wallSeconds) {
        public ScenarioRun {
            results = List.copyOf(results);
        }
    }

    private SweepTable() {
    }

    public static String markdown(String quotaModel, List<ScenarioRun> runs) {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | strategy | drain s | vs oracle | util | throttled | calls/req | success |\n");
        out.append("|---|---|--:|--:|--:|--:|--:|--:|\n");
        for (ScenarioRun run : runs) {
            if (!run.quotaModel().equals(quotaModel)) {
                continue;
            }
            StrategyResult oracle = ComparisonTable.oracle(run.results());
            for (StrategyResult r : run.results()) {
                out.append(String.format(Locale.ROOT, "| %s | %s | %,.1f | %s | %s | %,d | %.2f | %.1f%% |%n",
                        run.scenario(), r.strategy(), r.drainSeconds(), ComparisonTable.versus(r, oracle),
                        ComparisonTable.utilization(r), r.throttled(), ComparisonTable.callsPerRequest(r),
                        100 * r.successRate()));
            }
        }
        return out.toString();
    }

    /** Wall seconds per scenario (rows) and quota model (columns), all strategies together. */
    public static String wallTimes(List<String> quotaModels, List<ScenarioRun> runs) {
        Map<String, Map<String, Double>> byScenario = new LinkedHashMap<>();
        for (ScenarioRun run : runs) {
            byScenario.computeIfAbsent(run.scenario(), s -> new LinkedHashMap<>()).put(run.quotaModel(), run.wallSeconds());
        }
        StringBuilder out = new StringBuilder("| scenario | requests |");
        quotaModels.forEach(m -> out.append(' ').append(m).append(" wall s |"));
        out.append("\n|---|--:|").append("--:|".repeat(quotaModels.size())).append('\n');
        double total = 0;
        for (Map.Entry<String, Map<String, Double>> row : byScenario.entrySet()) {
            long requests = runs.stream().filter(r -> r.scenario().equals(row.getKey())).findFirst()
                    .map(r -> r.results().isEmpty() ? 0L : r.results().get(0).requests()).orElse(0L);
            out.append("| ").append(row.getKey()).append(String.format(Locale.ROOT, " | %,d |", requests));
            for (String model : quotaModels) {
                double wall = row.getValue().getOrDefault(model, 0.0);
                total += wall;
                out.append(String.format(Locale.ROOT, " %.1f |", wall));
            }
            out.append('\n');
        }
        out.append(String.format(Locale.ROOT, "%ntotal: %.0f s wall%n", total));
        return out.toString();
    }
}
