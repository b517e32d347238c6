package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: the seed burst, scaled down and played on a faster clock so that it finishes in
 * under two minutes, sent three ways at once (direct without retries, direct with retry and jitter,
 * through the shaper's HTTP API), each against its own Bedrock simulator, with the real AWS SDK.
 * Exit code 0 when every shaper request succeeded without a single throttle at its Bedrock, 1
 * otherwise, 2 for bad options.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Send the seed burst (scaled to finish in under 2 minutes) directly and through the shaper, "
                + "over HTTP against Bedrock simulators with the real AWS SDK, and compare.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every shaper request succeeded, 0 throttles", "1:the shaper arm fell short",
                "2:bad options"})
public final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "demo-out",
            description = "Where result.json and " + DemoChart.FILE_NAME + " go (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--seed", defaultValue = "42", paramLabel = "N",
            description = "Seeds prompt sizes, arrival times, latency and retry jitter (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--requests", defaultValue = "" + DemoSettings.DEFAULT_REQUESTS, paramLabel = "N",
            description = "Requests in the burst, ~18.5k tokens each (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--quota-tpm", paramLabel = "N",
            description = "The model's tokens-per-minute quota (default: the burst's size ÷ 4.63, so that the burst"
                    + " is as many minutes of quota as the seed's; 560000 for 140 requests).")
    Long quotaTpm;

    @Option(names = "--quota-model", defaultValue = "token-bucket", paramLabel = "MODEL",
            description = "token-bucket, fixed-window or sliding-window (default: ${DEFAULT-VALUE}).")
    String quotaModel;

    @Option(names = "--time-scale", defaultValue = "" + DemoSettings.DEFAULT_TIME_SCALE, paramLabel = "K",
            description = "Run every clock of the demo K times faster than the wall, 1 to 60 (default:"
                    + " ${DEFAULT-VALUE}; 1 = real time).")
    double timeScale;

    @Option(names = "--arrival-seconds", defaultValue = "30", paramLabel = "S",
            description = "The burst arrives within S seconds (default: ${DEFAULT-VALUE}, as in the seed).")
    double arrivalSeconds;

    @Option(names = "--burst-allowance", paramLabel = "X",
            description = "How far past the quota the simulated Bedrock may accept, in quota-minutes (default: 5.5,"
                    + " the seed calibration; 1 = strict).")
    Double burstAllowance;

    @Option(names = "--throttled-charge-factor", paramLabel = "F",
            description = "What a throttled call costs the quota, times its reservation (default: 2, the seed"
                    + " calibration; 0 = free).")
    Double throttledChargeFactor;

    @Option(names = "--latency-scale", defaultValue = "1.0", paramLabel = "X",
            description = "Multiplies the simulated generation time (default: ${DEFAULT-VALUE}).")
    double latencyScale;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        DemoSettings settings;
        try {
            settings = settings();
        } catch (IllegalArgumentException e) {
            stderr.println("error: " + e.getMessage());
            stderr.flush();
            return 2;
        }
        stdout.print(DemoReport.header(settings));
        stdout.println();
        stdout.flush();
        DemoResult result = DemoRun.run(settings, List.of(Arm.values()), line -> {
            stdout.println(line);
            stdout.flush();
        });
        stdout.println();
        stdout.print(DemoReport.table(result));
        stdout.println();
        stdout.print(DemoReport.summary(result));
        Path json = out.resolve("result.json");
        Path chart = out.resolve(DemoChart.FILE_NAME);
        DemoReport.writeJson(json, result);
        DemoChart.deliveredPerMinute(chart, result);
        stdout.println();
        stdout.println("wrote " + json + " and " + chart);
        stdout.flush();
        Optional<String> shortfall = result.shaperShortfall();
        if (shortfall.isPresent()) {
            stderr.println("FAILED: the shaper arm did not deliver every request without a throttle: "
                    + shortfall.get());
            stderr.flush();
            return 1;
        }
        stdout.println("OK: every request through the shaper succeeded, with 0 throttles at its Bedrock.");
        stdout.flush();
        return 0;
    }

    private DemoSettings settings() {
        if (!(arrivalSeconds >= 0) || arrivalSeconds > 3_600) {
            throw new IllegalArgumentException("--arrival-seconds must be in [0, 3600], was " + arrivalSeconds);
        }
        Leniency calibration = BuiltInScenarios.SEED_CALIBRATION;
        DemoSettings.Builder builder = DemoSettings.builder()
                .requests(requests)
                .quotaModel(QuotaModel.fromWireName(quotaModel))
                .leniency(new Leniency(
                        burstAllowance != null ? burstAllowance : calibration.burstAllowance(),
                        throttledChargeFactor != null ? throttledChargeFactor : calibration.throttledChargeFactor(),
                        calibration.refundAtSettlement()))
                .timeScale(timeScale)
                .arrivalWindow(Duration.ofMillis(Math.round(arrivalSeconds * 1_000)))
                .latencyScale(latencyScale)
                .seed(seed);
        if (quotaTpm != null) {
            builder.quotaTpm(quotaTpm);
        }
        return builder.build();
    }
}
