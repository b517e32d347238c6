package dev.trafficshaper.loadtest.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.DirectoryObjectStore;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.report.ArmMeasurement;
import dev.trafficshaper.loadtest.report.LoadTestReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar's {@code run --local}, killed (SIGKILL, no shutdown hook runs) while the shaper is
 * still draining its queue, then reported: every request without a terminal outcome is lost, and
 * no request counts as succeeded that the outcome files do not show succeeding.
 */
class KilledRunIT {

    private static final int REQUESTS = 64;

    @Test
    @Timeout(240)
    void aRunKilledMidwayIsReportedWithItsUnfinishedRequestsLost(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        Path log = dir.resolve("run.log");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process process = new ProcessBuilder(java, "-jar", "target/traffic-shaper-loadtest.jar", "run", "--local",
                "--scenario", "scenarios/burst-4x-small.json", "--arms", "direct,shaper", "--time-scale", "10",
                "--out", run.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Path webhooks = run.resolve(RunLayout.outcomes(ArmKind.SHAPER, "webhook"));
            Awaitility.await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(200))
                    .until(() -> lines(webhooks) >= 5 || !process.isAlive());
            assertThat(process.isAlive()).as(Files.readString(log)).isTrue();
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }

        long succeededLines = Files.readAllLines(run.resolve(RunLayout.outcomes(ArmKind.SHAPER, "webhook"))).stream()
                .filter(line -> line.contains("\"status\":\"SUCCEEDED\"")).map(line -> line.replaceAll(
                        ".*\"id\":\"([^\"]+)\".*", "$1")).distinct().count();
        LoadTestReport.Report report = LoadTestReport.produce(new DirectoryObjectStore(run), dir.resolve("report"));

        ArmMeasurement shaper = report.measured(ArmKind.SHAPER);
        assertThat(shaper.lost()).as(report.text()).isPositive();
        assertThat(shaper.succeeded()).isEqualTo(succeededLines).isLessThan(REQUESTS);
        assertThat(shaper.succeeded() + shaper.failed() + shaper.lost()).isEqualTo(REQUESTS);
        ArmMeasurement direct = report.measured(ArmKind.DIRECT);
        assertThat(direct.succeeded() + direct.failed() + direct.lost()).isEqualTo(REQUESTS);
        assertThat(report.reconciliation().complete()).isFalse();
        assertThat(report.text()).contains("lost (no terminal outcome): direct " + direct.lost() + ", shaper "
                + shaper.lost());
    }

    private static long lines(Path file) throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        List<String> lines = Files.readAllLines(file);
        return lines.size();
    }
}
