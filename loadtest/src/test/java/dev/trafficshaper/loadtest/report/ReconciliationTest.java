package dev.trafficshaper.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.harness.AppendingFileSink;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.DirectoryObjectStore;
import dev.trafficshaper.loadtest.harness.OutcomeLine;
import dev.trafficshaper.loadtest.harness.OutcomeStatus;
import dev.trafficshaper.loadtest.harness.RequestIds;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.harness.ScheduledRequest;
import dev.trafficshaper.loadtest.harness.TestRuns;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reconciliation by request id, and what a run killed midway leaves behind. */
class ReconciliationTest {

    private final RunManifest manifest = TestRuns.manifest(TestRuns.burst(20), List.of(ArmKind.DIRECT,
            ArmKind.SHAPER), 2);
    private final List<ScheduledRequest> schedule = manifest.schedule().requests();

    @Test
    void aRunKilledMidwayCountsEveryUnfinishedRequestAsLostNeverAsSucceeded(@TempDir Path dir) throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(dir);
        manifest.write(store);
        // the direct arm got through 12 of 20 before the kill; worker 1's last line was cut short
        try (AppendingFileSink w0 = new AppendingFileSink(store.path(RunLayout.outcomes(ArmKind.DIRECT, "w0")));
             AppendingFileSink w1 = new AppendingFileSink(store.path(RunLayout.outcomes(ArmKind.DIRECT, "w1")))) {
            for (ScheduledRequest r : schedule.subList(0, 12)) {
                (r.index() % 2 == 0 ? w0 : w1).write(TestRuns.direct(ArmKind.DIRECT, r, r.index() % 2,
                        r.index() < 6 ? OutcomeStatus.SUCCEEDED : OutcomeStatus.FAILED, 1, r.index() < 6 ? 0 : 1, 900));
            }
        }
        Files.writeString(store.path(RunLayout.outcomes(ArmKind.DIRECT, "w1")),
                "{\"arm\":\"direct\",\"id\":\"" + RequestIds.of(TestRuns.RUN_ID, ArmKind.DIRECT, 13)
                        + "\",\"status\":\"SUCC", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        // every shaper request was submitted, only 5 came back before the kill
        try (AppendingFileSink submissions = new AppendingFileSink(store.path(RunLayout.outcomes(ArmKind.SHAPER, "w0")));
             AppendingFileSink webhooks = new AppendingFileSink(store.path(RunLayout.outcomes(ArmKind.SHAPER,
                     "webhook")))) {
            for (ScheduledRequest r : schedule) {
                submissions.write(TestRuns.submitted(r, 0));
            }
            for (ScheduledRequest r : schedule.subList(0, 5)) {
                webhooks.write(TestRuns.delivered(r, 1_000, 5_000));
            }
        }

        Reconciliation reconciliation = Reconciliation.of(RunManifest.read(store), RunOutcomes.read(store));

        assertThat(reconciliation.counts().unreadableLines()).isEqualTo(1);
        assertThat(reconciliation.lost(ArmKind.DIRECT)).isEqualTo(8);
        assertThat(reconciliation.lost(ArmKind.SHAPER)).isEqualTo(15);
        assertThat(reconciliation.complete()).isFalse();
        List<ReconciledRequest> direct = reconciliation.requests(ArmKind.DIRECT);
        assertThat(direct).hasSize(20);
        assertThat(direct.stream().filter(ReconciledRequest::succeeded)).hasSize(6);
        assertThat(direct.get(13).outcome()).isEqualTo(ReconciledRequest.LOST);
        List<ReconciledRequest> shaper = reconciliation.requests(ArmKind.SHAPER);
        assertThat(shaper.stream().filter(ReconciledRequest::succeeded)).hasSize(5);
        assertThat(shaper.get(10).outcome()).isEqualTo(ReconciledRequest.LOST);
        assertThat(shaper.get(10).sentMillis()).as("a submitted request is still lost").isNotNull();

        LoadTestReport.Report report = LoadTestReport.produce(store, dir.resolve("report"));
        ArmMeasurement shaperArm = report.measured(ArmKind.SHAPER);
        assertThat(shaperArm.succeeded()).isEqualTo(5);
        assertThat(shaperArm.lost()).isEqualTo(15);
        assertThat(shaperArm.successRate()).isEqualTo(0.25);
        ArmMeasurement directArm = report.measured(ArmKind.DIRECT);
        assertThat(directArm.succeeded() + directArm.failed() + directArm.lost()).isEqualTo(20);
        assertThat(report.text()).contains("1 cut short", "lost (no terminal outcome): direct 8, shaper 15");
        assertThat(Files.readAllLines(dir.resolve("report").resolve(LoadTestReport.RECONCILED))).hasSize(40)
                .filteredOn(line -> line.contains("\"LOST\"")).hasSize(23);
        assertThat(dir.resolve("report").resolve(LoadTestReport.DELIVERED_CHART)).isRegularFile();
    }

    @Test
    void theFirstTerminalOutcomeCountsAndRepeatedDeliveriesAndOtherRunsAreSetAside(@TempDir Path dir) {
        DirectoryObjectStore store = new DirectoryObjectStore(dir);
        manifest.write(store);
        ScheduledRequest first = schedule.get(0);
        try (AppendingFileSink webhooks = new AppendingFileSink(store.path(RunLayout.outcomes(ArmKind.SHAPER,
                "webhook")))) {
            webhooks.write(TestRuns.delivered(first, 1_000, 9_000));
            webhooks.write(TestRuns.delivered(first, 1_000, 4_000));
            webhooks.write(OutcomeLine.builder(ArmKind.SHAPER, RequestIds.of("otherrun", ArmKind.SHAPER, 0))
                    .status(OutcomeStatus.SUCCEEDED).build());
            webhooks.write(OutcomeLine.builder(ArmKind.SHAPER, RequestIds.of(TestRuns.RUN_ID, ArmKind.SHAPER, 999))
                    .status(OutcomeStatus.SUCCEEDED).build());
        }

        Reconciliation reconciliation = Reconciliation.of(manifest, RunOutcomes.read(store));

        assertThat(reconciliation.counts().duplicates()).isEqualTo(1);
        assertThat(reconciliation.counts().strays()).isEqualTo(2);
        assertThat(reconciliation.counts().conflicts()).isZero();
        ReconciledRequest reconciled = reconciliation.requests(ArmKind.SHAPER).get(0);
        assertThat(reconciled.finishedMillis()).isEqualTo(first.arrivalMillis() + 4_000);
        assertThat(reconciled.latencyMillis()).isEqualTo(4_000);
        assertThat(reconciliation.lost(ArmKind.DIRECT)).isEqualTo(20);
    }
}
