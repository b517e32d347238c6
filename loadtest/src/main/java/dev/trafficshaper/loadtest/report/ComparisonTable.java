package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.sim.GroupWait;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.loadtest.strategy.Strategies;
import java.util.List;
import java.util.Locale;

/** The comparison table printed after a simulation. */
public final class ComparisonTable {

    private ComparisonTable() {
    }

    /**
     * One row per strategy. {@code vs oracle} is the drain time ÷ the oracle's (the physical limit for
     * this meter and workload; "—" when the oracle was not run); utilization is given per metered
     * dimension.
     */
    public static String render(List<StrategyResult> results) {
        StrategyResult oracle = oracle(results);
        StringBuilder out = new StringBuilder();
        String header = String.format(Locale.ROOT, "%-20s %9s %8s %9s %9s %9s %9s %9s %9s %9s  %s%n",
                "strategy", "success", "failed", "throttled", "apiCalls", "calls/req", "p50 s", "p99 s", "drain s",
                "vs oracle", "util");
        out.append(header);
        out.append("-".repeat(header.length() + 20)).append('\n');
        for (StrategyResult r : results) {
            out.append(String.format(Locale.ROOT, "%-20s %8.1f%% %8d %9d %9d %9.2f %9.1f %9.1f %9.1f %9s  %s%n",
                    r.strategy(), 100 * r.successRate(), r.failed(), r.throttled(), r.apiCalls(), callsPerRequest(r),
                    r.latencyP50Ms() / 1_000.0, r.latencyP99Ms() / 1_000.0, r.drainSeconds(), versus(r, oracle),
                    utilization(r)));
        }
        return out.toString();
    }

    /** The oracle's result among these, or null. */
    public static StrategyResult oracle(List<StrategyResult> results) {
        return find(results, Strategies.ORACLE);
    }

    /** The result of {@code strategy}, or null if it did not run. */
    static StrategyResult find(List<StrategyResult> results, String strategy) {
        return results.stream().filter(r -> r.strategy().equals(strategy)).findFirst().orElse(null);
    }

    static String versus(StrategyResult r, StrategyResult oracle) {
        return oracle == null || oracle.drainSeconds() <= 0 ? "—" : String.format(Locale.ROOT, "%.2fx", r.versus(oracle));
    }

    static double callsPerRequest(StrategyResult r) {
        return r.requests() == 0 ? 0 : (double) r.apiCalls() / r.requests();
    }

    /** Per dimension, e.g. {@code tpm 0.950 rpm 0.210}; the single figure when only one is metered. */
    static String utilization(StrategyResult r) {
        if (r.dimensionUtilization().size() <= 1) {
            return String.format(Locale.ROOT, "%.3f", r.utilization());
        }
        StringBuilder text = new StringBuilder();
        r.dimensionUtilization().forEach((dimension, share) -> text.append(text.length() == 0 ? "" : " ")
                .append(dimension).append(' ').append(String.format(Locale.ROOT, "%.3f", share)));
        return text.toString();
    }

    /** Requests and waits (arrival to the start of the call that ended each) per lane and per tenant. */
    public static String renderWaits(List<StrategyResult> results) {
        StringBuilder out = new StringBuilder();
        String header = String.format(Locale.ROOT, "%-20s %-8s %-14s %9s %11s %11s%n", "strategy", "by", "group",
                "requests", "p50 wait s", "p99 wait s");
        out.append(header);
        out.append("-".repeat(header.length() - 1)).append('\n');
        for (StrategyResult r : results) {
            row(out, r.strategy(), "all", "all", r.requests(), r.waitP50Ms(), r.waitP99Ms());
            for (GroupWait lane : r.lanes()) {
                row(out, r.strategy(), "lane", lane.group(), lane.requests(), lane.waitP50Ms(), lane.waitP99Ms());
            }
            for (GroupWait tenant : r.tenants()) {
                row(out, r.strategy(), "tenant", tenant.group(), tenant.requests(), tenant.waitP50Ms(),
                        tenant.waitP99Ms());
            }
        }
        return out.toString();
    }

    private static void row(StringBuilder out, String strategy, String by, String group, long requests, long p50,
                            long p99) {
        out.append(String.format(Locale.ROOT, "%-20s %-8s %-14s %9d %11.1f %11.1f%n", strategy, by, group, requests,
                p50 / 1_000.0, p99 / 1_000.0));
    }
}
