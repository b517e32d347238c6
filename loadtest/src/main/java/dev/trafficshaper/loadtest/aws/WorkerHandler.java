package dev.trafficshaper.loadtest.aws;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.trafficshaper.loadtest.harness.ArmDriver;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.BatchedObjectSink;
import dev.trafficshaper.loadtest.harness.BedrockArm;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.OutcomeSink;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.harness.ScheduledRequest;
import dev.trafficshaper.loadtest.harness.ShaperApiArm;
import dev.trafficshaper.loadtest.harness.SliceItem;
import dev.trafficshaper.loadtest.harness.SliceWorker;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Lambda function behind each Distributed Map item: reads the run's manifest, regenerates the
 * schedule, and plays its worker's slice of one time window with {@link SliceWorker} against
 * Bedrock (the direct arms) and the shaper's API (the shaper arm, SigV4), writing outcome lines to
 * S3 in batches. It stops in time to flush before Lambda's limit; whatever is unanswered then is
 * left without an outcome and counts as lost.
 *
 * <p>Output: {@code {"worker", "window", "sent", "skipped", "unfinished", "maxLagMillis"}}.
 */
public final class WorkerHandler implements RequestStreamHandler {

    /** Kept free at the end of an invocation to close clients and flush the last outcome objects. */
    static final long FLUSH_MARGIN_MILLIS = 20_000;
    static final int LINES_PER_OBJECT = 500;
    static final long FLUSH_EVERY_MILLIS = 10_000;

    private final WorkerEnvironment environment;

    /** Lambda's entry point: wired from the function's environment once per container. */
    public WorkerHandler() {
        this(AwsWorkerEnvironment.fromSystem());
    }

    public WorkerHandler(WorkerEnvironment environment) {
        this.environment = environment;
    }

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        SliceTask task = LoadTestJson.read(input.readAllBytes(), SliceTask.class);
        long remaining = context == null ? Long.MAX_VALUE : context.getRemainingTimeInMillis();
        SliceWorker.Result result;
        try {
            result = play(task, remaining);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("worker interrupted", e);
        }
        output.write(LoadTestJson.line(Map.of("worker", result.worker(), "window", task.slice().window(),
                "sent", result.sent(), "skipped", result.skipped(), "unfinished", result.unfinished(),
                "maxLagMillis", result.maxLagMillis())).getBytes(StandardCharsets.UTF_8));
    }

    SliceWorker.Result play(SliceTask task, long remainingMillis) throws InterruptedException {
        ObjectStore run = environment.run(task.runId());
        RunManifest manifest = RunManifest.read(run);
        SliceItem item = task.slice();
        if (item.workers() != manifest.workers()) {
            throw new IllegalArgumentException("item for " + item.workers() + " workers, but run " + manifest.runId()
                    + " has " + manifest.workers());
        }
        List<ScheduledRequest> slice = manifest.schedule().slice(item.worker(), item.workers(), item.fromMillis(),
                item.untilMillis());
        var clock = environment.clock();
        long stopAt = Math.min(item.stopAtEpochMillis(),
                remainingMillis == Long.MAX_VALUE ? Long.MAX_VALUE
                        : clock.nowMillis() + remainingMillis - FLUSH_MARGIN_MILLIS);
        List<OutcomeSink> sinks = new ArrayList<>();
        List<ArmDriver> drivers = new ArrayList<>();
        try {
            for (ArmKind arm : manifest.armKinds()) {
                OutcomeSink sink = BatchedObjectSink.create(run, RunLayout.OUTCOMES + arm.wireName() + "/"
                        + item.writerName(), LINES_PER_OBJECT, FLUSH_EVERY_MILLIS);
                sinks.add(sink);
                drivers.add(arm == ArmKind.SHAPER
                        ? new ShaperApiArm(environment.shaper(), manifest.modelKey(), null, manifest.deadlineSeconds(),
                                manifest.runId(), item.worker(), sink, clock)
                        : BedrockArm.create(arm, environment.bedrock(), manifest.modelId(), manifest.runId(),
                                item.worker(), sink, clock));
            }
            for (ArmDriver driver : drivers) {
                driver.warmUp();
            }
            return SliceWorker.play(item.worker(), slice, drivers, clock, manifest.startEpochMillis(), stopAt);
        } finally {
            for (ArmDriver driver : drivers) {
                driver.close();
            }
            RuntimeException failure = null;
            for (OutcomeSink sink : sinks) {
                try {
                    sink.close();
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }
}
