package dev.trafficshaper.loadtest.aws;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.report.ReconciledRequest;
import dev.trafficshaper.loadtest.report.Reconciliation;
import dev.trafficshaper.loadtest.report.RunOutcomes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The run's final step on AWS: reconciles every outcome object with the schedule by request id and
 * writes {@code report/summary.json} (per arm: scheduled, succeeded, failed, lost). The state machine
 * calls it again every 30 s until every request has a terminal outcome or the manifest's drain
 * deadline has passed; the last call also writes {@code report/reconciled.jsonl}, one line per
 * scheduled request, the lost ones included. {@code loadtest report s3://...} reads the same files.
 *
 * <p>Input {@code {"runId"}}; output {@code {"complete", "drainDeadlinePassed", "lost"}}.
 */
public final class ReconcileHandler implements RequestStreamHandler {

    private final Function<String, ObjectStore> runs;
    private final LongSupplier clock;

    public ReconcileHandler() {
        AwsWorkerEnvironment environment = AwsWorkerEnvironment.fromSystem();
        this.runs = environment::run;
        this.clock = System::currentTimeMillis;
    }

    /** @param clock epoch milliseconds */
    public ReconcileHandler(Function<String, ObjectStore> runs, LongSupplier clock) {
        this.runs = runs;
        this.clock = clock;
    }

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        String runId = LoadTestJson.tree(new String(input.readAllBytes(), StandardCharsets.UTF_8)).path("runId")
                .asText(null);
        output.write(LoadTestJson.line(reconcile(runId)).getBytes(StandardCharsets.UTF_8));
    }

    Map<String, Object> reconcile(String runId) {
        ObjectStore run = runs.apply(runId);
        RunManifest manifest = RunManifest.read(run);
        Reconciliation reconciliation = Reconciliation.of(manifest, RunOutcomes.read(run));
        long now = clock.getAsLong();
        boolean complete = reconciliation.complete();
        boolean deadlinePassed = now >= manifest.drainDeadlineEpochMillis();
        Map<String, Object> arms = new LinkedHashMap<>();
        long lost = 0;
        for (ArmKind arm : reconciliation.arms()) {
            long succeeded = reconciliation.requests(arm).stream().filter(ReconciledRequest::succeeded).count();
            long armLost = reconciliation.lost(arm);
            lost += armLost;
            arms.put(arm.wireName(), Map.of("scheduled", manifest.requests(), "succeeded", succeeded,
                    "failed", manifest.requests() - succeeded - armLost, "lost", armLost));
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("runId", runId);
        summary.put("checkedAt", Instant.ofEpochMilli(now).toString());
        summary.put("complete", complete);
        summary.put("drainDeadlinePassed", deadlinePassed);
        summary.put("arms", arms);
        summary.put("reconciliation", reconciliation.counts());
        run.put(RunLayout.SUMMARY, LoadTestJson.pretty(summary));
        if (complete || deadlinePassed) {
            StringBuilder lines = new StringBuilder();
            for (ArmKind arm : reconciliation.arms()) {
                for (ReconciledRequest request : reconciliation.requests(arm)) {
                    lines.append(LoadTestJson.line(request)).append('\n');
                }
            }
            run.put(RunLayout.RECONCILED, lines.toString().getBytes(StandardCharsets.UTF_8));
        }
        return Map.of("complete", complete, "drainDeadlinePassed", deadlinePassed, "lost", lost);
    }
}
