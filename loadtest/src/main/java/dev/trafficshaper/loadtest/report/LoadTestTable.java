package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.sim.StrategyResult;
import java.util.List;
import java.util.Locale;

/**
 * The report's table: per arm, what the run measured, what the simulator predicted for the same
 * schedule, and the difference (measured − predicted). The simulator does not model lost requests
 * or p95, so those cells of its rows are blank.
 */
public final class LoadTestTable {

    /** One arm's rows. */
    public record Row(ArmMeasurement measured, StrategyResult predicted) {
    }

    private static final String FORMAT = "%-13s %-10s %8s %6s %6s %9s %9s %7s %7s %7s %8s %7s%n";

    private LoadTestTable() {
    }

    public static String render(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        String header = String.format(Locale.ROOT, FORMAT, "arm", "", "success", "failed", "lost", "throttled",
                "calls/req", "p50 s", "p95 s", "p99 s", "drain s", "util");
        out.append(header).append("-".repeat(header.length() - 1)).append('\n');
        for (Row row : rows) {
            ArmMeasurement m = row.measured();
            out.append(String.format(Locale.ROOT, FORMAT, m.arm().wireName(), "measured", percent(m.successRate()),
                    m.failed(), m.lost(), m.throttles(), two(m.callsPerRequest()), seconds(m.latencyP50Ms()),
                    seconds(m.latencyP95Ms()), seconds(m.latencyP99Ms()), one(m.drainSeconds()),
                    three(m.utilization())));
            StrategyResult p = row.predicted();
            if (p == null) {
                continue;
            }
            double predictedCalls = p.requests() == 0 ? 0 : (double) p.apiCalls() / p.requests();
            out.append(String.format(Locale.ROOT, FORMAT, "", "predicted", percent(p.successRate()), p.failed(), "",
                    p.throttled(), two(predictedCalls), seconds(p.latencyP50Ms()), "", seconds(p.latencyP99Ms()),
                    one(p.drainSeconds()), three(p.utilization())));
            out.append(String.format(Locale.ROOT, FORMAT, "", "difference",
                    String.format(Locale.ROOT, "%+.1fpp", 100 * (m.successRate() - p.successRate())),
                    signed(m.failed() - p.failed()), "", signed(m.throttles() - p.throttled()),
                    String.format(Locale.ROOT, "%+.2f", m.callsPerRequest() - predictedCalls),
                    String.format(Locale.ROOT, "%+.1f", (m.latencyP50Ms() - p.latencyP50Ms()) / 1_000.0), "",
                    String.format(Locale.ROOT, "%+.1f", (m.latencyP99Ms() - p.latencyP99Ms()) / 1_000.0),
                    String.format(Locale.ROOT, "%+.1f", m.drainSeconds() - p.drainSeconds()),
                    String.format(Locale.ROOT, "%+.3f", m.utilization() - p.utilization())));
        }
        return out.toString();
    }

    private static String percent(double rate) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * rate);
    }

    private static String two(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String one(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String three(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static String seconds(long millis) {
        return one(millis / 1_000.0);
    }

    private static String signed(long value) {
        return String.format(Locale.ROOT, "%+d", value);
    }
}
