package dev.trafficshaper.loadtest.cli;

import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.simulator.provider.ShortHorizon;
import dev.trafficshaper.loadtest.report.Charts;
import dev.trafficshaper.loadtest.report.ComparisonTable;
import dev.trafficshaper.loadtest.report.ResultFile;
import dev.trafficshaper.loadtest.report.SeedSweepTable;
import dev.trafficshaper.loadtest.report.SweepTable;
import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.loadtest.scenario.Deployment;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.ScenarioFile;
import dev.trafficshaper.loadtest.sim.RunMetrics;
import dev.trafficshaper.loadtest.sim.Simulation;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.loadtest.strategy.Strategies;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code simulate}: one scenario, several strategies, in virtual time. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Simulate a scenario in virtual time and compare strategies.")
final class SimulateCommand implements Callable<Integer> {

    /** What {@code --all} compares unless {@code --strategies} says otherwise. */
    static final List<String> SWEEP_STRATEGIES = List.of("direct-no-retry", "direct-retry-jitter",
            Strategies.SDK_ADAPTIVE, Strategies.SHAPER, Strategies.ORACLE);

    @Option(names = "--scenario", paramLabel = "NAME|FILE.json",
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

    @Option(names = "--seeds", paramLabel = "N", defaultValue = "1",
            description = "With --all: run every scenario with N seeds (--seed, --seed + 1, ...) and print, per quota"
                    + " model, each strategy's mean and worst multiple of the oracle over them, and how often the"
                    + " shaper drained slower than sdk-adaptive; writes DIR/seed-<seed>/<model>/<scenario>/result.json"
                    + " (default: ${DEFAULT-VALUE}).")
    int seeds;

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

    @Option(names = "--short-horizon", paramLabel = "MILLIS:SHARE",
            description = "Turn on the provider's short-horizon limit: within any MILLIS the calls started may reserve"
                    + " at most SHARE of a minute's quota (e.g. 1000:0.05); 'off' turns a scenario's off.")
    String shortHorizon;

    @Option(names = "--headroom", paramLabel = "on|off",
            description = "The shaper's headroom: on (the production default) or off (the strict bound)"
                    + " (default: the scenario's).")
    String headroom;

    @Option(names = "--headroom-budget", paramLabel = "SHARE",
            description = "The most of the calls over any 10 minutes headroom's probes may have refused, in (0, 0.1]"
                    + " (the production default 0.01; default: the scenario's).")
    Double headroomBudget;

    @Option(names = "--all", description = "Every built-in scenario under each of the three quota models; prints one"
            + " Markdown table per model (default strategies: " + "direct-no-retry, direct-retry-jitter, sdk-adaptive, shaper,"
            + " oracle) and the wall time of each run; writes DIR/<model>/<scenario>/result.json"
            + " (default DIR: results/all).")
    boolean all;

    @Option(names = "--deployment", paramLabel = "PRESET",
            description = "What surrounds the production drainer: default (the scenario's) or pessimistic (dispatch"
                    + " p99 2 s, 2 s cold starts, settlements 500 ms late, a handoff every 2 minutes, one drainer"
                    + " crash half-way through the arrivals).")
    String deployment;

    @Option(names = "--dispatch", paramLabel = "MODE",
            description = "How the production drainer sends calls: inline (the default, as deployed: the drainer makes"
                    + " the calls that fit in its invocation itself) or async (an asynchronous invoke of the Bedrock"
                    + " Processor each); a scenario file's deployment.dispatchMode otherwise.")
    String dispatch;

    @Override
    public Integer call() {
        if (all == (scenario != null)) {
            System.err.println("error: give either --scenario NAME|FILE.json or --all");
            return 2;
        }
        if (seeds < 1 || (seeds > 1 && !all)) {
            System.err.println("error: --seeds takes a count of at least 1, and more than 1 only with --all");
            return 2;
        }
        if (all && quotaModel != null) {
            System.err.println("error: --all runs every quota model; leave out --quota-model");
            return 2;
        }
        List<String> names = strategies != null ? strategies : all ? SWEEP_STRATEGIES : Strategies.names();
        for (String name : names) {
            if (!Strategies.names().contains(name)) {
                System.err.println("error: unknown strategy '" + name + "'; known: " + String.join(", ", Strategies.names()));
                return 2;
            }
        }
        if (!names.contains(Strategies.ORACLE)) {
            names = new ArrayList<>(names);
            names.add(Strategies.ORACLE);
        }
        try {
            if (!all) {
                return one(adjusted(ScenarioFile.resolve(scenario)), names);
            }
            return seeds > 1 ? seededSweep(names) : sweep(names);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            return 2;
        }
    }

    /** The scenario with this command's overrides of the provider and deployment. */
    private Scenario adjusted(Scenario chosen) {
        if (quotaModel != null) {
            chosen = chosen.withQuotaModel(QuotaModel.fromWireName(quotaModel));
        }
        if (shortHorizon != null) {
            chosen = chosen.withShortHorizon(parseShortHorizon(shortHorizon));
        }
        if (strict) {
            chosen = chosen.withLeniency(Leniency.STRICT);
        }
        if (deployment != null) {
            chosen = withDeployment(chosen, deployment);
        }
        if (dispatch != null) {
            chosen = chosen.withDeployment(chosen.deployment().withDispatchMode(DispatchMode.parse(dispatch)));
        }
        if (headroom != null) {
            chosen = withHeadroom(chosen, headroom);
        }
        if (headroomBudget != null) {
            chosen = withHeadroomBudget(chosen, headroomBudget);
        }
        if (burstAllowance != null || throttledChargeFactor != null) {
            Leniency l = chosen.leniency();
            chosen = chosen.withLeniency(new Leniency(burstAllowance != null ? burstAllowance : l.burstAllowance(),
                    throttledChargeFactor != null ? throttledChargeFactor : l.throttledChargeFactor(),
                    l.refundAtSettlement()));
        }
        return chosen;
    }

    static ShortHorizon parseShortHorizon(String text) {
        if (text.equals("off")) {
            return ShortHorizon.OFF;
        }
        String[] parts = text.split(":");
        try {
            if (parts.length == 2) {
                return new ShortHorizon(Long.parseLong(parts[0]), Double.parseDouble(parts[1]));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--short-horizon takes MILLIS:SHARE (e.g. 1000:0.05) or off, not '"
                + text + "'");
    }

    /** {@code --all}: every built-in scenario under each quota model, one Markdown table per model. */
    private int sweep(List<String> names) {
        Path root = sweepRoot();
        List<String> models = modelNames();
        List<SweepTable.ScenarioRun> runs = runAll(names, seed, root, "");
        for (String model : models) {
            System.out.printf(Locale.ROOT, "%n#### %s (%s, seed %d)%n%n", model, leniencyNote(), seed);
            System.out.print(SweepTable.markdown(model, runs));
        }
        System.out.printf(Locale.ROOT, "%n#### wall time%n%n");
        System.out.print(SweepTable.wallTimes(models, runs));
        System.out.println();
        System.out.println("wrote " + root + "/<model>/<scenario>/result.json");
        return 0;
    }

    /** {@code --all --seeds N}: the sweep once per seed, summarised per quota model over the seeds. */
    private int seededSweep(List<String> names) {
        Path root = sweepRoot();
        List<SeedSweepTable.SeededRun> runs = new ArrayList<>();
        for (long s = seed; s < seed + seeds; s++) {
            String progress = String.format(Locale.ROOT, "seed %d (%d of %d) ", s, s - seed + 1, seeds);
            for (SweepTable.ScenarioRun run : runAll(names, s, root.resolve("seed-" + s), progress)) {
                runs.add(new SeedSweepTable.SeededRun(s, run));
            }
        }
        for (String model : modelNames()) {
            System.out.printf(Locale.ROOT, "%n#### %s (%s, seeds %d-%d)%n%n", model, leniencyNote(), seed,
                    seed + seeds - 1);
            System.out.print(SeedSweepTable.markdown(model, runs));
        }
        System.out.println();
        System.out.println("wrote " + root + "/seed-<seed>/<model>/<scenario>/result.json");
        return 0;
    }

    private Path sweepRoot() {
        return out != null ? out : Path.of("results", "all");
    }

    private String leniencyNote() {
        return strict ? "strict leniency" : "each scenario's leniency";
    }

    private static List<String> modelNames() {
        return Arrays.stream(QuotaModel.values()).map(QuotaModel::wireName).toList();
    }

    /** Every built-in scenario under each quota model with {@code runSeed}, each written to {@code dir}. */
    private List<SweepTable.ScenarioRun> runAll(List<String> names, long runSeed, Path dir, String progress) {
        List<SweepTable.ScenarioRun> runs = new ArrayList<>();
        for (QuotaModel model : QuotaModel.values()) {
            for (String name : BuiltInScenarios.names()) {
                Scenario chosen = adjusted(BuiltInScenarios.find(name).orElseThrow().withQuotaModel(model));
                long started = System.nanoTime();
                System.err.printf(Locale.ROOT, "  %s%-16s %-30s ...", progress, model.wireName(), name);
                List<StrategyResult> results = Simulation.run(chosen, names, runSeed);
                double wall = (System.nanoTime() - started) / 1e9;
                System.err.printf(Locale.ROOT, " %.1f s%n", wall);
                ResultFile.write(dir.resolve(model.wireName()).resolve(name).resolve("result.json"), chosen, runSeed,
                        results);
                runs.add(new SweepTable.ScenarioRun(name, model.wireName(), results, wall));
            }
        }
        return runs;
    }

    private int one(Scenario chosen, List<String> names) {
        Path dir = out != null ? out : Path.of("results", chosen.name());
        System.out.printf(Locale.ROOT, "scenario %s (%s), quota model %s, seed %d%n", chosen.name(),
                chosen.description() == null ? "from file" : chosen.description(), chosen.quotaModel(), seed);
        if (chosen.shortHorizon().enabled()) {
            System.out.printf(Locale.ROOT, "short-horizon limit on: at most %.3f of a minute's quota within %d ms%n",
                    chosen.shortHorizon().share(), chosen.shortHorizon().millis());
        }
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

    /** The scenario with its shaper's budget of extra calls set to {@code share} of the calls. */
    static Scenario withHeadroomBudget(Scenario scenario, double share) {
        return scenario.withShaper(scenario.shaper().toBuilder().headroomBudget(share).build());
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
