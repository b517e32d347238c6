package dev.trafficshaper.loadtest.sim;

import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.strategy.Strategies;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sweep behind the README's tables ({@code simulate --all --strict}, seed 42): every built-in
 * scenario under one meter with strict leniency, the shaper with the production defaults, and every
 * strategy (the tables' five and {@code client-bucket} and {@code window-pacer}; each strategy's run
 * is its own, so the extra two change none of the five's figures). Each meter's sweep runs once per test JVM and is shared by the tests that read it, since
 * it takes several seconds.
 */
final class SeedSweep {

    static final long SEED = 42;

    private static final Map<QuotaModel, Map<String, List<StrategyResult>>> RUNS = new ConcurrentHashMap<>();

    private SeedSweep() {
    }

    static Scenario strict(String name, QuotaModel model) {
        return BuiltInScenarios.find(name).orElseThrow().withQuotaModel(model).withLeniency(Leniency.STRICT);
    }

    /** Every built-in scenario's results under {@code model}, in the order of {@link BuiltInScenarios#names()}. */
    static Map<String, List<StrategyResult>> under(QuotaModel model) {
        return RUNS.computeIfAbsent(model, SeedSweep::run);
    }

    static StrategyResult of(List<StrategyResult> results, String strategy) {
        return results.stream().filter(r -> r.strategy().equals(strategy)).findFirst().orElseThrow();
    }

    private static Map<String, List<StrategyResult>> run(QuotaModel model) {
        Map<String, List<StrategyResult>> runs = new LinkedHashMap<>();
        for (String name : BuiltInScenarios.names()) {
            runs.put(name, Simulation.run(strict(name, model), Strategies.names(), SEED));
        }
        return runs;
    }
}
