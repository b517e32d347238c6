package dev.trafficshaper.loadtest.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.ScenarioFile;
import dev.trafficshaper.loadtest.sim.GroupWait;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Writes {@code result.json}: the scenario as run, the seed, and one entry per strategy. */
public final class ResultFile {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultFile() {
    }

    public static String render(Scenario scenario, long seed, List<StrategyResult> results) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("scenario", scenario.name());
        root.put("quotaModel", scenario.quotaModel());
        root.put("seed", seed);
        try {
            root.set("scenarioDefinition", MAPPER.readTree(ScenarioFile.write(scenario)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StrategyResult oracle = ComparisonTable.oracle(results);
        if (oracle != null) {
            root.put("oracleDrainSeconds", oracle.drainSeconds());
        }
        ArrayNode strategies = root.putArray("results");
        for (StrategyResult r : results) {
            ObjectNode node = strategies.addObject();
            node.put("strategy", r.strategy());
            node.put("requests", r.requests());
            node.put("succeeded", r.succeeded());
            node.put("failed", r.failed());
            node.put("throttled", r.throttled());
            node.put("apiCalls", r.apiCalls());
            node.put("latencyP50Ms", r.latencyP50Ms());
            node.put("latencyP99Ms", r.latencyP99Ms());
            node.put("drainSeconds", r.drainSeconds());
            if (oracle != null) {
                node.put("vsOracle", Math.round(r.versus(oracle) * 1_000) / 1_000.0);
            }
            node.put("utilization", r.utilization());
            ObjectNode byDimension = node.putObject("dimensionUtilization");
            r.dimensionUtilization().forEach(byDimension::put);
            node.put("successRate", Math.round(r.successRate() * 10_000) / 10_000.0);
            node.put("requeues", r.requeues());
            node.put("waitP50Ms", r.waitP50Ms());
            node.put("waitP99Ms", r.waitP99Ms());
            groups(node.putArray("lanes"), "lane", r.lanes());
            groups(node.putArray("tenants"), "tenant", r.tenants());
            if (r.drainer() != null) {
                node.set("drainer", MAPPER.valueToTree(r.drainer()));
            }
            ArrayNode perMinute = node.putArray("deliveredTokensPerMinute");
            for (long v : r.deliveredPerMinute()) {
                perMinute.add(v);
            }
        }
        try {
            return MAPPER.writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void groups(ArrayNode into, String key, List<GroupWait> groups) {
        for (GroupWait g : groups) {
            into.addObject().put(key, g.group()).put("requests", g.requests()).put("waitP50Ms", g.waitP50Ms())
                    .put("waitP99Ms", g.waitP99Ms());
        }
    }

    public static void write(Path file, Scenario scenario, long seed, List<StrategyResult> results) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, render(scenario, seed, results));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
