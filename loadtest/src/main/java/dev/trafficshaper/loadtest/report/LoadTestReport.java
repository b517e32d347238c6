package dev.trafficshaper.loadtest.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.sim.RunMetrics;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code report DIR|s3://...}: reconciles a run's outcomes by request id, measures each arm as
 * {@code simulate} measures a strategy, predicts the same schedule with the simulator, and writes
 * the table, the charts, {@code result.json}, the reconciled requests and the calibration hint.
 * It works on a finished run and on one killed midway alike: whatever has no terminal outcome is lost.
 */
public final class LoadTestReport {

    public static final String RESULT = "result.json";
    public static final String RECONCILED = "reconciled.jsonl";
    public static final String CALIBRATION = "calibration.json";
    public static final String DELIVERED_CHART = "delivered-per-minute.png";
    public static final String QUEUE_CHART = "queue-depth.png";

    /** What the report found, and the text it printed. */
    public record Report(String text, Reconciliation reconciliation, List<LoadTestTable.Row> rows,
                         Optional<Calibration.Hint> calibration) {

        public ArmMeasurement measured(ArmKind arm) {
            return rows.stream().map(LoadTestTable.Row::measured).filter(m -> m.arm() == arm).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no arm " + arm.wireName() + " in the run"));
        }
    }

    private LoadTestReport() {
    }

    /** Reads the run from {@code run} and writes the report's files into {@code outDirectory}. */
    public static Report produce(ObjectStore run, Path outDirectory) {
        RunManifest manifest = RunManifest.read(run);
        Reconciliation reconciliation = Reconciliation.of(manifest, RunOutcomes.read(run));
        Scenario scenario = manifest.scenarioDefinition();
        List<ArmKind> arms = manifest.armKinds();
        Map<ArmKind, StrategyResult> predicted = Prediction.of(manifest, arms);
        List<LoadTestTable.Row> rows = new ArrayList<>();
        for (ArmKind arm : arms) {
            rows.add(new LoadTestTable.Row(ArmMeasurement.of(arm, reconciliation.requests(arm), scenario.quota()),
                    predicted.get(arm)));
        }
        Optional<Calibration.Hint> hint = arms.contains(ArmKind.DIRECT)
                ? Optional.of(Calibration.fit(Prediction.scenarioAsRun(manifest), manifest.seed(),
                        reconciliation.requests(ArmKind.DIRECT)))
                : Optional.empty();
        Optional<JsonNode> provider = run.get(RunLayout.PROVIDER)
                .map(bytes -> LoadTestJson.tree(new String(bytes, StandardCharsets.UTF_8)));

        StringBuilder text = new StringBuilder();
        text.append(header(manifest, scenario)).append('\n');
        text.append(reconciliationLine(reconciliation)).append("\n\n");
        text.append(LoadTestTable.render(rows));
        lagLine(rows).ifPresent(line -> text.append('\n').append(line));
        provider.ifPresent(stats -> text.append('\n').append(providerLine(stats, arms)));
        hint.ifPresent(h -> text.append('\n').append(h.render()));
        writeFiles(outDirectory, manifest, scenario, reconciliation, rows, hint, provider);
        text.append('\n').append("wrote ").append(outDirectory.resolve(RESULT)).append(", ").append(RECONCILED)
                .append(", ").append(DELIVERED_CHART).append(", ").append(QUEUE_CHART)
                .append(hint.isPresent() ? ", " + CALIBRATION : "").append('\n');
        return new Report(text.toString(), reconciliation, rows, hint);
    }

    private static String header(RunManifest manifest, Scenario scenario) {
        String clock = manifest.timeScale() == 1.0 ? "real time" : String.format(Locale.ROOT, "%s× clock",
                manifest.timeScale() == Math.rint(manifest.timeScale()) ? Long.toString((long) manifest.timeScale())
                        : Double.toString(manifest.timeScale()));
        return String.format(Locale.ROOT, "run %s (%s, %s): scenario %s, seed %d, %,d requests × %d arm%s, %d worker%s;"
                        + " times are seconds on the run's clock after the first arrival is due",
                manifest.runId(), manifest.target(), clock, scenario.name(), manifest.seed(), manifest.requests(),
                manifest.arms().size(), manifest.arms().size() == 1 ? "" : "s", manifest.workers(),
                manifest.workers() == 1 ? "" : "s");
    }

    private static String reconciliationLine(Reconciliation reconciliation) {
        Reconciliation.Counts c = reconciliation.counts();
        StringBuilder lost = new StringBuilder();
        for (ArmKind arm : reconciliation.arms()) {
            lost.append(lost.length() == 0 ? "" : ", ").append(arm.wireName()).append(' ')
                    .append(reconciliation.lost(arm));
        }
        return String.format(Locale.ROOT, "reconciled by request id: %,d lines, %d cut short, %d duplicates, %d"
                        + " conflicting, %d strays; lost (no terminal outcome): %s", c.lines(), c.unreadableLines(),
                c.duplicates(), c.conflicts(), c.strays(), lost);
    }

    /** Warns when the generator fell behind its schedule by more than {@value #LAG_WARNING_MILLIS} ms. */
    private static Optional<String> lagLine(List<LoadTestTable.Row> rows) {
        StringBuilder arms = new StringBuilder();
        for (LoadTestTable.Row row : rows) {
            ArmMeasurement m = row.measured();
            if (m.maxSendLagMillis() > LAG_WARNING_MILLIS) {
                arms.append(arms.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s p99 %.1f s, max %.1f s",
                        m.arm().wireName(), m.sendLagP99Ms() / 1_000.0, m.maxSendLagMillis() / 1_000.0));
            }
        }
        if (arms.length() == 0) {
            return Optional.empty();
        }
        return Optional.of("requests left their workers late (" + arms + "): the generator was short of CPU or"
                + " threads, so the load it sent was more spread out than the schedule the prediction plays; give it"
                + " more workers, or a slower --time-scale\n");
    }

    static final long LAG_WARNING_MILLIS = 1_000;

    private static String providerLine(JsonNode stats, List<ArmKind> arms) {
        StringBuilder out = new StringBuilder("each arm's Bedrock simulator counted:");
        for (ArmKind arm : arms) {
            JsonNode s = stats.path("arms").path(arm.wireName());
            if (s.isObject()) {
                out.append(String.format(Locale.ROOT, " %s %d calls, %d throttled;", arm.wireName(),
                        s.path("calls").asLong(), s.path("throttles").asLong()));
            }
        }
        out.setLength(out.length() - 1);
        return out.append('\n').toString();
    }

    private static void writeFiles(Path out, RunManifest manifest, Scenario scenario, Reconciliation reconciliation,
                                   List<LoadTestTable.Row> rows, Optional<Calibration.Hint> hint,
                                   Optional<JsonNode> provider) {
        try {
            Files.createDirectories(out);
            ObjectNode root = LoadTestJson.MAPPER.createObjectNode();
            root.set("run", LoadTestJson.MAPPER.valueToTree(manifest));
            root.set("reconciliation", LoadTestJson.MAPPER.valueToTree(reconciliation.counts()));
            ArrayNode arms = root.putArray("arms");
            List<StrategyResult> series = new ArrayList<>();
            for (LoadTestTable.Row row : rows) {
                ObjectNode arm = arms.addObject();
                arm.put("arm", row.measured().arm().wireName());
                arm.set("measured", measuredJson(row.measured()));
                arm.set("predicted", predictedJson(row.predicted()));
                series.add(row.measured().asStrategyResult(row.measured().arm().wireName() + " (measured)"));
                series.add(relabel(row.predicted(), row.measured().arm().wireName() + " (predicted)"));
            }
            provider.ifPresent(p -> root.set("provider", p.path("arms")));
            hint.ifPresent(h -> root.set("calibration", LoadTestJson.MAPPER.valueToTree(h)));
            Files.write(out.resolve(RESULT), LoadTestJson.pretty(root));
            StringBuilder lines = new StringBuilder();
            for (ArmKind arm : reconciliation.arms()) {
                for (ReconciledRequest request : reconciliation.requests(arm)) {
                    lines.append(LoadTestJson.line(request)).append('\n');
                }
            }
            Files.writeString(out.resolve(RECONCILED), lines);
            if (hint.isPresent()) {
                Files.write(out.resolve(CALIBRATION), LoadTestJson.pretty(hint.get()));
            }
            long quota = scenario.quota().limit(RunMetrics.primaryDimension(scenario.quota()));
            Charts.deliveredPerMinute(out.resolve(DELIVERED_CHART), "run " + manifest.runId() + " (" + scenario.name()
                    + "): delivered tokens per minute vs quota, measured and predicted", quota, series);
            Charts.queueDepth(out.resolve(QUEUE_CHART), "run " + manifest.runId() + ": requests waiting for their"
                    + " first Bedrock call", series);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + out, e);
        }
    }

    private static ObjectNode measuredJson(ArmMeasurement m) {
        ObjectNode node = LoadTestJson.MAPPER.createObjectNode();
        node.put("requests", m.requests());
        node.put("succeeded", m.succeeded());
        node.put("failed", m.failed());
        node.put("lost", m.lost());
        node.put("successRate", Math.round(m.successRate() * 10_000) / 10_000.0);
        node.put("throttles", m.throttles());
        node.put("bedrockCalls", m.bedrockCalls());
        node.put("latencyP50Ms", m.latencyP50Ms());
        node.put("latencyP95Ms", m.latencyP95Ms());
        node.put("latencyP99Ms", m.latencyP99Ms());
        node.put("drainSeconds", m.drainSeconds());
        node.put("utilization", m.utilization());
        node.put("deliveredTokens", m.deliveredTokens());
        node.put("sendLagP99Ms", m.sendLagP99Ms());
        node.put("maxSendLagMillis", m.maxSendLagMillis());
        node.set("failureReasons", LoadTestJson.MAPPER.valueToTree(m.failureReasons()));
        node.set("deliveredTokensPerMinute", LoadTestJson.MAPPER.valueToTree(m.deliveredPerMinute()));
        return node;
    }

    private static ObjectNode predictedJson(StrategyResult p) {
        ObjectNode node = LoadTestJson.MAPPER.createObjectNode();
        node.put("strategy", p.strategy());
        node.put("requests", p.requests());
        node.put("succeeded", p.succeeded());
        node.put("failed", p.failed());
        node.put("successRate", Math.round(p.successRate() * 10_000) / 10_000.0);
        node.put("throttles", p.throttled());
        node.put("bedrockCalls", p.apiCalls());
        node.put("latencyP50Ms", p.latencyP50Ms());
        node.put("latencyP99Ms", p.latencyP99Ms());
        node.put("drainSeconds", p.drainSeconds());
        node.put("utilization", p.utilization());
        node.set("deliveredTokensPerMinute", LoadTestJson.MAPPER.valueToTree(p.deliveredPerMinute()));
        return node;
    }

    private static StrategyResult relabel(StrategyResult r, String label) {
        return new StrategyResult(label, r.requests(), r.succeeded(), r.failed(), r.throttled(), r.apiCalls(),
                r.requeues(), r.latencyP50Ms(), r.latencyP99Ms(), r.drainSeconds(), r.utilization(),
                r.deliveredPerMinute(), r.deliveredPerTenSeconds(), r.queueDepthPerSecond(), r.waitP50Ms(),
                r.waitP99Ms(), r.lanes(), r.tenants(), r.drainer(), r.dimensionUtilization());
    }
}
