package dev.trafficshaper.loadtest.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.DirectoryObjectStore;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.RequestIds;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.harness.ScheduledRequest;
import dev.trafficshaper.loadtest.harness.TestRuns;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The AWS path after the workers: outcome events to S3 objects, then the reconcile loop's answer. */
class RecorderAndReconcileTest {

    private final RunManifest manifest = TestRuns.manifest(TestRuns.burst(4), List.of(ArmKind.SHAPER), 1);
    private final List<ScheduledRequest> schedule = manifest.schedule().requests();

    @Test
    void theRecorderWritesEachBatchsOutcomesAsANewObjectOfItsRun(@TempDir Path dir) throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(dir.resolve("runs").resolve(TestRuns.RUN_ID));
        OutcomeRecorderHandler recorder = new OutcomeRecorderHandler(runId -> store);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        recorder.handleRequest(new ByteArrayInputStream(sqsBatch(0, 1, 1).getBytes(StandardCharsets.UTF_8)), out, null);

        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("{\"recorded\":3}");
        List<String> objects = store.list(RunLayout.OUTCOMES);
        assertThat(objects).hasSize(1).allMatch(key -> key.startsWith("outcomes/shaper/events-"));
        String lines = new String(store.get(objects.get(0)).orElseThrow(), StandardCharsets.UTF_8);
        assertThat(lines.split("\n")).hasSize(3).allMatch(line -> line.contains("\"source\":\"event\""));
    }

    @Test
    void reconcileWaitsForEveryOutcomeOrTheDrainDeadlineThenWritesTheReconciledRequests(@TempDir Path dir)
            throws Exception {
        DirectoryObjectStore store = new DirectoryObjectStore(dir);
        manifest.write(store);
        AtomicLong now = new AtomicLong(TestRuns.START + 60_000);
        ReconcileHandler reconcile = new ReconcileHandler(runId -> store, now::get);
        OutcomeRecorderHandler recorder = new OutcomeRecorderHandler(runId -> store);

        recorder.record(LoadTestJson.tree(sqsBatch(0, 1)));
        Map<String, Object> first = reconcile.reconcile(TestRuns.RUN_ID);
        assertThat(first).containsEntry("complete", false).containsEntry("drainDeadlinePassed", false)
                .containsEntry("lost", 2L);
        assertThat(store.get(RunLayout.SUMMARY)).isPresent();
        assertThat(store.get(RunLayout.RECONCILED)).isEmpty();

        recorder.record(LoadTestJson.tree(sqsBatch(1, 2, 3)));
        Map<String, Object> second = reconcile.reconcile(TestRuns.RUN_ID);
        assertThat(second).containsEntry("complete", true).containsEntry("lost", 0L);
        String reconciled = new String(store.get(RunLayout.RECONCILED).orElseThrow(), StandardCharsets.UTF_8);
        assertThat(reconciled.split("\n")).hasSize(4).allMatch(line -> line.contains("\"SUCCEEDED\""));
        assertThat(new String(store.get(RunLayout.SUMMARY).orElseThrow(), StandardCharsets.UTF_8))
                .contains("\"duplicates\" : 1");
    }

    @Test
    void pastTheDrainDeadlineTheMissingOutcomesAreLost(@TempDir Path dir) {
        ObjectStore store = new DirectoryObjectStore(dir);
        manifest.write(store);
        ReconcileHandler reconcile = new ReconcileHandler(runId -> store, () -> manifest.drainDeadlineEpochMillis());

        Map<String, Object> result = reconcile.reconcile(TestRuns.RUN_ID);

        assertThat(result).containsEntry("complete", false).containsEntry("drainDeadlinePassed", true)
                .containsEntry("lost", 4L);
        assertThat(new String(store.get(RunLayout.RECONCILED).orElseThrow(), StandardCharsets.UTF_8))
                .contains("\"LOST\"");
    }

    /** An SQS batch of the shaper's outcome events (as EventBridge delivers them) for these schedule indexes. */
    private String sqsBatch(int... indexes) {
        ObjectNode event = LoadTestJson.MAPPER.createObjectNode();
        ArrayNode records = event.putArray("Records");
        for (int index : indexes) {
            ScheduledRequest r = schedule.get(index);
            ObjectNode detail = LoadTestJson.MAPPER.createObjectNode()
                    .put("requestId", RequestIds.of(TestRuns.RUN_ID, ArmKind.SHAPER, index))
                    .put("status", "SUCCEEDED").put("httpStatus", 200).put("requeues", 0)
                    .put("admittedAt", java.time.Instant.ofEpochMilli(TestRuns.START + r.arrivalMillis() + 500).toString())
                    .put("finishedAt", java.time.Instant.ofEpochMilli(TestRuns.START + r.arrivalMillis() + 2_000)
                            .toString());
            detail.putObject("usage").put("inputTokens", r.inputTokens()).put("outputTokens", 200);
            ObjectNode envelope = LoadTestJson.MAPPER.createObjectNode().put("source", "traffic-shaper")
                    .put("detail-type", "Shaped request finished");
            envelope.set("detail", detail);
            records.addObject().put("messageId", "m" + index).put("body", LoadTestJson.line(envelope));
        }
        return LoadTestJson.line(event);
    }
}
