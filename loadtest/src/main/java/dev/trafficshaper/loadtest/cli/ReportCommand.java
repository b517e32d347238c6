package dev.trafficshaper.loadtest.cli;

import dev.trafficshaper.loadtest.aws.S3ObjectStore;
import dev.trafficshaper.loadtest.harness.DirectoryObjectStore;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.report.LoadTestReport;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/** {@code report DIR|s3://bucket/runs/ID/}: reconcile a run (finished or not) and compare it with the prediction. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Reconcile a load-test run by request id and print it beside the simulator's prediction.")
final class ReportCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR|s3://BUCKET/runs/ID/", description = "The run's directory or S3 prefix.")
    String run;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Where the report's files go (default: DIR/report, or loadtest-out/<run id>/report for S3).")
    Path out;

    @Option(names = "--region", paramLabel = "REGION", description = "The bucket's region (default: the SDK's).")
    String region;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        try {
            if (run.startsWith("s3://")) {
                var builder = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder());
                if (region != null) {
                    builder.region(software.amazon.awssdk.regions.Region.of(region));
                }
                try (S3Client s3 = builder.build()) {
                    ObjectStore store = S3ObjectStore.at(s3, URI.create(run.endsWith("/") ? run : run + "/"));
                    Path dir = out != null ? out
                            : Path.of("loadtest-out", RunManifest.read(store).runId(), "report");
                    return print(stdout, store, dir);
                }
            }
            Path dir = Path.of(run);
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException("no directory " + dir);
            }
            return print(stdout, new DirectoryObjectStore(dir), out != null ? out : dir.resolve("report"));
        } catch (IllegalArgumentException | IllegalStateException e) {
            stderr.println("error: " + e.getMessage());
            stderr.flush();
            return 2;
        }
    }

    private static int print(PrintWriter stdout, ObjectStore store, Path dir) {
        LoadTestReport.Report report = LoadTestReport.produce(store, dir);
        stdout.print(report.text());
        stdout.flush();
        return 0;
    }
}
