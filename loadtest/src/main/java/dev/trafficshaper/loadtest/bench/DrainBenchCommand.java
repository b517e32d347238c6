package dev.trafficshaper.loadtest.bench;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code drain-bench}: how many admissions a second one model's production drainer makes. */
@Command(name = "drain-bench", mixinStandardHelpOptions = true,
        description = "Run the production drainer against a backlog with DynamoDB's call pattern and latency "
                + "modelled, and print its admissions per second and DynamoDB calls per admission.")
public final class DrainBenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--seconds", defaultValue = "10", description = "How long the drainer runs (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--latency-ms", defaultValue = "8",
            description = "Latency of each DynamoDB call and each dispatch (default: ${DEFAULT-VALUE}).")
    double latencyMillis;

    @Option(names = "--bedrock-ms", defaultValue = "1000",
            description = "How long Bedrock takes to answer each request its processor claimed (default: ${DEFAULT-VALUE}).")
    long bedrockMillis;

    @Option(names = "--shards", defaultValue = "16", description = "Queue shards of the model (default: ${DEFAULT-VALUE}).")
    int shards;

    @Option(names = "--tenants", defaultValue = "8", description = "Tenants sending the backlog (default: ${DEFAULT-VALUE}).")
    int tenants;

    @Option(names = "--dispatch-threads", defaultValue = "64",
            description = "Dispatch calls in flight at once (default: ${DEFAULT-VALUE}, as the Queue Processor).")
    int dispatchThreads;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (seconds < 1 || latencyMillis < 0 || bedrockMillis < 0 || shards < 1 || tenants < 1 || dispatchThreads < 1) {
            spec.commandLine().getErr().println("seconds, shards, tenants and dispatch threads must be positive, "
                    + "latencies not negative");
            return 2;
        }
        DrainBench.Result result = new DrainBench(seconds, latencyMillis, bedrockMillis, shards, tenants,
                dispatchThreads).run(out);
        out.println(String.format(Locale.ROOT, "admissions/s=%.0f dynamodb-calls/admission=%.3f",
                result.admissionsPerSecond(), result.callsPerAdmission()));
        out.flush();
        return 0;
    }
}
