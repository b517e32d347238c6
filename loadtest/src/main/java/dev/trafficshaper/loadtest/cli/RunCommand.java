package dev.trafficshaper.loadtest.cli;

import dev.trafficshaper.loadtest.aws.AwsLoadRun;
import dev.trafficshaper.loadtest.aws.AwsRunSettings;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.DirectoryObjectStore;
import dev.trafficshaper.loadtest.harness.LocalLoadRun;
import dev.trafficshaper.loadtest.harness.LocalRunSettings;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.report.LoadTestReport;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.ScenarioFile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code run --local|--aws}: plays a scenario's schedule open loop against real endpoints, one
 * arm per way of calling Bedrock, and reports it beside the simulator's prediction.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Play a scenario open-loop against real endpoints (--local: Bedrock simulators and the local"
                + " server, started here; --aws: a deployed TrafficShaperLoadTest stack) and report it.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every request of every arm has a terminal outcome", "1:some requests are lost",
                "2:bad options"})
final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static final class Target {
        @Option(names = "--local", required = true, description = "Start the simulators and the local server here.")
        boolean local;

        @Option(names = "--aws", required = true, description = "Run on the deployed load-test stack (--stack).")
        boolean aws;
    }

    @Option(names = "--scenario", required = true, paramLabel = "NAME|FILE.json",
            description = "A built-in scenario or a scenario file, as simulate reads it.")
    String scenario;

    @Option(names = "--arms", split = ",", paramLabel = "a,b", defaultValue = "direct,retry-jitter,sdk-adaptive,shaper",
            description = "Arms to play, each with its own request ids (default: ${DEFAULT-VALUE}).")
    List<String> arms;

    @Option(names = "--out", paramLabel = "DIR",
            description = "The run's directory (--local; default loadtest-out/<run id>) or where the report goes (--aws).")
    Path out;

    @Option(names = "--seed", defaultValue = "42", paramLabel = "N",
            description = "Seeds the schedule, as simulate's --seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--time-scale", defaultValue = "1", paramLabel = "K",
            description = "--local: run every clock K times faster than the wall, 1 to 60 (default: ${DEFAULT-VALUE}).")
    double timeScale;

    @Option(names = "--workers", paramLabel = "N",
            description = "Workers sharing the schedule (default: sized by Little's law).")
    Integer workers;

    @Option(names = "--in-flight-per-worker", defaultValue = "200", paramLabel = "N",
            description = "Requests one worker holds at once, for the sizing (default: ${DEFAULT-VALUE}).")
    int inFlightPerWorker;

    @Option(names = "--drain-minutes", defaultValue = "60", paramLabel = "M",
            description = "Minutes after the last arrival to wait for outcomes before the rest count as lost"
                    + " (default: ${DEFAULT-VALUE}).")
    double drainMinutes;

    @Option(names = "--deadline-seconds", paramLabel = "S",
            description = "Each shaper request's deadline (default: the model's).")
    Long deadlineSeconds;

    @Option(names = "--model", defaultValue = LocalRunSettings.DEFAULT_MODEL_KEY, paramLabel = "KEY",
            description = "The shaper's model key (default: ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--model-id", paramLabel = "ID",
            description = "The Bedrock model id the direct arms call (default: --local amazon.nova-lite-v1:0;"
                    + " --aws the shaper's id for --model).")
    String modelId;

    @Option(names = "--stack", defaultValue = "TrafficShaperLoadTest", paramLabel = "NAME",
            description = "--aws: the load-test stack (default: ${DEFAULT-VALUE}).")
    String stack;

    @Option(names = "--region", paramLabel = "REGION", description = "--aws: the stack's region (default: the SDK's).")
    String region;

    @Option(names = "--window-minutes", defaultValue = "10", paramLabel = "M",
            description = "--aws: the schedule's part one worker invocation plays (default: ${DEFAULT-VALUE}).")
    double windowMinutes;

    @Option(names = "--input-price", defaultValue = "0.06", paramLabel = "USD",
            description = "--aws: Bedrock's price per million input tokens, for the estimate (default: ${DEFAULT-VALUE},"
                    + " Nova Lite).")
    double inputPrice;

    @Option(names = "--output-price", defaultValue = "0.24", paramLabel = "USD",
            description = "--aws: per million output tokens (default: ${DEFAULT-VALUE}).")
    double outputPrice;

    @Option(names = "--dry-run", description = "--aws: print the plan and the cost estimate, start nothing.")
    boolean dryRun;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        Scenario chosen;
        List<ArmKind> armKinds;
        try {
            chosen = ScenarioFile.resolve(scenario);
            armKinds = ArmKind.parse(arms);
        } catch (IllegalArgumentException e) {
            return fail(stderr, e.getMessage());
        }
        try {
            return target.local ? local(chosen, armKinds, stdout, stderr) : aws(chosen, armKinds, stdout);
        } catch (IllegalArgumentException e) {
            return fail(stderr, e.getMessage());
        }
    }

    private int local(Scenario chosen, List<ArmKind> armKinds, PrintWriter stdout, PrintWriter stderr)
            throws InterruptedException {
        Path dir = out != null ? out : Path.of("loadtest-out", "local-" + LocalDateTime.now()
                .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        if (Files.exists(dir.resolve(RunLayout.MANIFEST))) {
            return fail(stderr, dir + " already holds a run; choose another --out");
        }
        LocalRunSettings settings = new LocalRunSettings(chosen, seed, armKinds, dir, timeScale, workers,
                inFlightPerWorker, drainMinutes, deadlineSeconds, model, modelId);
        stdout.printf(Locale.ROOT, "run --local: scenario %s, seed %d, arms %s, clock %s× the wall, files in %s%n",
                chosen.name(), seed, String.join(",", armKinds.stream().map(ArmKind::wireName).toList()),
                trim(timeScale), dir);
        stdout.flush();
        LocalLoadRun.Result result = LocalLoadRun.run(settings, line -> {
            stdout.println(line);
            stdout.flush();
        });
        if (result.webhooksRefused() > 0) {
            stderr.println("warning: " + result.webhooksRefused() + " webhook calls had a bad signature and were refused");
        }
        stdout.printf(Locale.ROOT, "%s after %.1f s of wall time%n%n", result.complete()
                ? "every request has a terminal outcome" : "stopped at the drain deadline", result.wallSeconds());
        LoadTestReport.Report report = LoadTestReport.produce(new DirectoryObjectStore(dir), dir.resolve("report"));
        stdout.print(report.text());
        stdout.flush();
        return report.reconciliation().complete() ? 0 : 1;
    }

    private int aws(Scenario chosen, List<ArmKind> armKinds, PrintWriter stdout) throws InterruptedException {
        AwsRunSettings settings = new AwsRunSettings(chosen, seed, armKinds, out, stack, region, model, modelId,
                workers, inFlightPerWorker, drainMinutes, deadlineSeconds, windowMinutes, dryRun, inputPrice,
                outputPrice);
        if (timeScale != 1) {
            throw new IllegalArgumentException("--time-scale is for --local runs: AWS runs in real time");
        }
        return AwsLoadRun.run(settings, stdout);
    }

    private static int fail(PrintWriter stderr, String message) {
        stderr.println("error: " + message);
        stderr.flush();
        return 2;
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
