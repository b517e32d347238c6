package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.loadtest.strategy.Strategies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables of {@code simulate --all --seeds N}: every scenario and strategy over N seeds, so that
 * what a strategy does every time can be told from what one seed's traffic happened to give it.
 *
 * <p>Per quota model, one row per scenario and strategy: its drain as a multiple of the oracle's of
 * the same seed (mean and worst), throttles (mean), calls per request (worst) and success (worst);
 * on the shaper's row, in how many of the seeds where {@code sdk-adaptive} kept at least 99% of the
 * requests the shaper drained slower than it. A closing line counts the shaper's runs above 1.10×
 * the oracle and slower than the SDK over every seed.
 */
public final class SeedSweepTable {

    static final double SDK_KEPT = 0.99;
    static final double ORACLE_BOUND = 1.10;

    /** One scenario run under one quota model with one seed. */
    public record SeededRun(long seed, SweepTable.ScenarioRun run) {
    }

    private SeedSweepTable() {
    }

    public static String markdown(String quotaModel, List<SeededRun> runs) {
        Map<String, Map<String, Row>> rows = new LinkedHashMap<>();
        boolean sdkSeen = false;
        for (SeededRun seeded : runs) {
            SweepTable.ScenarioRun run = seeded.run();
            if (!run.quotaModel().equals(quotaModel)) {
                continue;
            }
            StrategyResult oracle = ComparisonTable.oracle(run.results());
            StrategyResult sdk = ComparisonTable.find(run.results(), Strategies.SDK_ADAPTIVE);
            sdkSeen |= sdk != null;
            Map<String, Row> byStrategy = rows.computeIfAbsent(run.scenario(), s -> new LinkedHashMap<>());
            for (StrategyResult r : run.results()) {
                byStrategy.computeIfAbsent(r.strategy(), s -> new Row()).add(r, oracle, sdk);
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("| scenario | strategy | vs oracle mean | vs oracle max | throttled mean | calls/req max"
                + " | success min | slower than sdk-adaptive |\n");
        out.append("|---|---|--:|--:|--:|--:|--:|--:|\n");
        int shaperRuns = 0;
        int aboveBound = 0;
        int sdkKept = 0;
        int slower = 0;
        for (Map.Entry<String, Map<String, Row>> scenario : rows.entrySet()) {
            for (Map.Entry<String, Row> strategy : scenario.getValue().entrySet()) {
                Row row = strategy.getValue();
                boolean shaper = strategy.getKey().equals(Strategies.SHAPER);
                out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %,.1f | %.2f | %.1f%% | %s |%n",
                        scenario.getKey(), strategy.getKey(), multiple(row.meanVersus()), multiple(row.maxVersus()),
                        row.meanThrottled(), row.maxCallsPerRequest, 100 * row.minSuccess,
                        shaper && row.sdkKept > 0 ? row.slower + " of " + row.sdkKept : "—"));
                if (shaper) {
                    shaperRuns += row.versus.size();
                    aboveBound += row.above(ORACLE_BOUND);
                    sdkKept += row.sdkKept;
                    slower += row.slower;
                }
            }
        }
        if (shaperRuns > 0) {
            out.append(String.format(Locale.ROOT, "%nshaper: above %.2fx the oracle in %d of %d runs",
                    ORACLE_BOUND, aboveBound, shaperRuns));
            if (sdkSeen) {
                out.append(String.format(Locale.ROOT, "; slower than %s in %d of the %d runs where it kept >= %.0f%%",
                        Strategies.SDK_ADAPTIVE, slower, sdkKept, 100 * SDK_KEPT));
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static String multiple(double value) {
        return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%.3fx", value);
    }

    /** One scenario and strategy over the seeds. */
    private static final class Row {
        private final List<Double> versus = new ArrayList<>();
        private double throttled;
        private int runs;
        private double maxCallsPerRequest;
        private double minSuccess = 1.0;
        private int sdkKept;
        private int slower;

        void add(StrategyResult r, StrategyResult oracle, StrategyResult sdk) {
            runs++;
            if (oracle != null && oracle.drainSeconds() > 0) {
                versus.add(r.versus(oracle));
            }
            throttled += r.throttled();
            maxCallsPerRequest = Math.max(maxCallsPerRequest, ComparisonTable.callsPerRequest(r));
            minSuccess = Math.min(minSuccess, r.successRate());
            if (sdk != null && sdk != r && sdk.successRate() >= SDK_KEPT) {
                sdkKept++;
                if (r.drainSeconds() > sdk.drainSeconds()) {
                    slower++;
                }
            }
        }

        double meanVersus() {
            return versus.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        }

        double maxVersus() {
            return versus.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }

        int above(double bound) {
            return (int) versus.stream().filter(v -> v > bound).count();
        }

        double meanThrottled() {
            return runs == 0 ? 0 : throttled / runs;
        }
    }
}
