package dev.trafficshaper.loadtest.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.ScenarioFile;
import dev.trafficshaper.loadtest.scenario.TrafficGenerator;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.Simulation;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code simulate} predicts for a run: the same scenario and seed, so the same requests at
 * the same instants, each arm as the strategy that models it. One thing is set from the run
 * itself: the number of client instances is the number of workers, since each worker has its own
 * SDK client (it matters to {@code sdk-adaptive}, whose rate limiter is per client).
 */
public final class Prediction {

    private Prediction() {
    }

    /** The scenario as the run played it. */
    public static Scenario scenarioAsRun(RunManifest manifest) {
        ObjectNode tree = (ObjectNode) LoadTestJson.tree(ScenarioFile.write(manifest.scenarioDefinition()));
        tree.put("clients", manifest.workers());
        return ScenarioFile.parse(tree.toString());
    }

    public static Map<ArmKind, StrategyResult> of(RunManifest manifest, List<ArmKind> arms) {
        Scenario scenario = scenarioAsRun(manifest);
        List<SimRequest> requests = TrafficGenerator.generate(scenario, manifest.seed());
        Map<ArmKind, StrategyResult> predicted = new LinkedHashMap<>();
        for (ArmKind arm : arms) {
            predicted.put(arm, Simulation.runOne(scenario, requests, arm.simulatedStrategy(), manifest.seed()));
        }
        return predicted;
    }
}
