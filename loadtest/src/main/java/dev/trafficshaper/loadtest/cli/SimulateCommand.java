package dev.trafficshaper.loadtest.cli;

import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.loadtest.report.Charts;
import dev.trafficshaper.loadtest.report.ComparisonTable;
import dev.trafficshaper.loadtest.report.ResultFile;
import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Deployment;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.ScenarioFile;
import dev.trafficshaper.loadtest.sim.RunMetrics;
import dev.trafficshaper.loadtest.sim.Simulation;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.loadtest.strategy.Strategies;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code simulate}: one scenario, several strategies, in virtual time. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Simulate a scenario in virtual time and compare strategies.")
final class SimulateCommand implements Callable<Integer> {

    @Option(names = "--scenario", required = true, paramLabel = "NAME|FILE.json",
            description = "Built-in scenario (${COMPLETION-CANDIDATES}) or a scenario JSON file.",
            completionCandidates = ScenarioNames.class)
    String scenario;

    @Option(names = "--quota-model", paramLabel = "MODEL",
            description = "token-bucket, fixed-window or sliding-window (default: the scenario's).")
    String quotaModel;

    @Option(names = "--strategies", split = ",", paramLabel = "a,b",
            description = "Strategies to compare (default: all): ${COMPLETION-CANDIDATES}.",
            completionCandidates = StrategyNames.class)
    List<String> strategies;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: results/<scenario>).")
    Path out;

    @Option(names = "--strict", description = "Meter strictly: no burst allowance, throttled attempts cost nothing.")
    boolean strict;

    @Option(names = "--burst-allowance", paramLabel = "X",
            description = "Override the meter's burst allowance (1.0 = strict).")
    Double burstAllowance;

    @Option(names = "--throttled-charge-factor", paramLabel = "S",
            description = "Override the share of a throttled attempt's reservation that is charged anyway.")
    Double throttledChargeFactor;

    @Option(names = "--deployment", paramLabel = "PRESET",
            description = "What surrounds the production drainer: default (the scenario's) or pessimistic (dispatch"
                    + " p99 2 s, 2 s cold starts, settlements 500 ms late, a handoff every 2 minutes, one drainer"
                    + " crash half-way through the arrivals).")
    String deployment;

    @Option(names = "--headroom", paramLabel = "on|off",
            description = "The shaper's headroom: on (the production default) or off (the strict bound)"
                    + " (default: the scenario's).")
    String headroom;

    @Override
    public Integer call() {
        Scenario chosen;
        try {
            chosen = ScenarioFile.resolve(scenario);
            if (quotaModel != null) {
                chosen = chosen.withQuotaModel(QuotaModel.fromWireName(quotaModel));
            }
            if (strict) {
                chosen = chosen.withLeniency(Leniency.STRICT);
            }
            if (deployment != null) {
                chosen = withDeployment(chosen, deployment);
            }
            if (headroom != null) {
                chosen = withHeadroom(chosen, headroom);
            }
            if (burstAllowance != null || throttledChargeFactor != null) {
                Leniency l = chosen.leniency();
                chosen = chosen.withLeniency(new Leniency(burstAllowance != null ? burstAllowance : l.burstAllowance(),
                        throttledChargeFactor != null ? throttledChargeFactor : l.throttledChargeFactor(),
                        l.refundAtSettlement()));
            }
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            return 2;
        }
        List<String> names = strategies == null ? Strategies.names() : strategies;
        for (String name : names) {
            if (!Strategies.names().contains(name)) {
                System.err.println("error: unknown strategy '" + name + "'; known: " + String.join(", ", Strategies.names()));
                return 2;
            }
        }
        Path dir = out != null ? out : Path.of("results", chosen.name());
        System.out.printf(Locale.ROOT, "scenario %s (%s), quota model %s, seed %d%n", chosen.name(),
                chosen.description() == null ? "from file" : chosen.description(), chosen.quotaModel(), seed);
        List<StrategyResult> results = new ArrayList<>();
        var requests = dev.trafficshaper.loadtest.scenario.TrafficGenerator.generate(chosen, seed);
        for (String name : names) {
            long started = System.nanoTime();
            System.out.printf(Locale.ROOT, "  simulating %-20s ...", name);
            System.out.flush();
            results.add(Simulation.runOne(chosen, requests, name, seed));
            System.out.printf(Locale.ROOT, " %d ms%n", (System.nanoTime() - started) / 1_000_000);
        }
        System.out.println();
        System.out.print(ComparisonTable.render(results));
        System.out.println();
        System.out.print(ComparisonTable.renderWaits(results));
        ResultFile.write(dir.resolve("result.json"), chosen, seed, results);
        long quotaPerMinute = chosen.quota().limit(RunMetrics.primaryDimension(chosen.quota()));
        Charts.deliveredPerMinute(dir.resolve("delivered-per-minute.png"),
                chosen.name() + " (" + chosen.quotaModel() + "): delivered tokens per minute vs quota",
                quotaPerMinute, results);
        Charts.queueDepth(dir.resolve("queue-depth.png"), chosen.name() + ": requests waiting", results);
        System.out.println();
        System.out.println("wrote " + dir.resolve("result.json") + ", delivered-per-minute.png, queue-depth.png");
        return 0;
    }

    /** The scenario with its shaper's headroom switched {@code on} or {@code off}. */
    static Scenario withHeadroom(Scenario scenario, String value) {
        boolean on = switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--headroom must be on or off, was '" + value + "'");
        };
        return scenario.withShaper(scenario.shaper().toBuilder().headroom(on).build());
    }

    /** The scenario with a deployment preset: {@code default} keeps its own, {@code pessimistic} replaces it. */
    static Scenario withDeployment(Scenario scenario, String preset) {
        return switch (preset) {
            case "default" -> scenario;
            case "pessimistic" -> scenario.withDeployment(Deployment.pessimistic(scenario.arrivalSeconds() / 2));
            default -> throw new IllegalArgumentException("unknown deployment preset '" + preset
                    + "': expected default or pessimistic");
        };
    }

    static final class ScenarioNames extends ArrayList<String> {
        ScenarioNames() {
            super(BuiltInScenarios.names());
        }
    }

    static final class StrategyNames extends ArrayList<String> {
        StrategyNames() {
            super(Strategies.names());
        }
    }
}
