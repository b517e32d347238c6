package dev.trafficshaper.loadtest.aws;

import dev.trafficshaper.client.ModelInfo;
import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.client.aws.AwsSigV4Signer;
import dev.trafficshaper.loadtest.harness.BedrockArm;
import dev.trafficshaper.loadtest.harness.CostEstimate;
import dev.trafficshaper.lifecycle.DrainClock;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.RequestIds;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.harness.RunSchedule;
import dev.trafficshaper.loadtest.harness.WindowPlan;
import dev.trafficshaper.loadtest.harness.WorkerSizing;
import dev.trafficshaper.loadtest.report.LoadTestReport;
import dev.trafficshaper.local.LocalClock;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.Output;
import software.amazon.awssdk.services.cloudformation.model.Stack;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.MapRunItemCounts;
import software.amazon.awssdk.services.sfn.model.MapRunListItem;

/**
 * {@code run --aws --stack NAME}: plans a run against a deployed {@code TrafficShaperLoadTest}
 * stack, prints the plan and its cost estimate, writes the manifest and the Distributed Map's items
 * to the stack's bucket, starts the run's state machine and streams its progress until the
 * reconcile step has finished, then prints the report.
 */
public final class AwsLoadRun {

    /** The load-test stack's outputs this command reads (the stack's test holds these names). */
    public static final String STATE_MACHINE_OUTPUT = "StateMachineArn";
    public static final String BUCKET_OUTPUT = "ResultsBucketName";
    public static final String SHAPER_API_OUTPUT = "ShaperApiStageUrl";
    public static final String WORKER_MEMORY_OUTPUT = "WorkerMemoryMb";
    /** Time from the start call to the schedule's time 0: the Distributed Map and the first workers start. */
    static final long START_DELAY_MILLIS = 120_000;
    static final long PROGRESS_MILLIS = 15_000;
    /** The stack's worker memory, for a dry run that cannot read the stack. */
    static final int DEFAULT_WORKER_MEMORY_MB = 2_048;

    private AwsLoadRun() {
    }

    public static int run(AwsRunSettings settings, PrintWriter out) throws InterruptedException {
        return run(settings, out, LocalClock.system());
    }

    /**
     * As {@link #run(AwsRunSettings, PrintWriter)}, reading time from and waiting on {@code clock}
     * between progress lines, as the rest of the harness waits; an interrupt ends the wait.
     */
    public static int run(AwsRunSettings settings, PrintWriter out, DrainClock clock) throws InterruptedException {
        Region region = region(settings);
        Map<String, String> outputs;
        try {
            outputs = stackOutputs(region, settings.stackName());
        } catch (SdkException e) {
            if (!settings.dryRun()) {
                throw new IllegalArgumentException("cannot read stack " + settings.stackName() + " in " + region.id()
                        + ": " + e.getMessage(), e);
            }
            out.println("stack " + settings.stackName() + " is not readable (" + e.getClass().getSimpleName()
                    + "): planning with the stack's defaults");
            outputs = Map.of(WORKER_MEMORY_OUTPUT, Integer.toString(DEFAULT_WORKER_MEMORY_MB));
        }
        int workerMemory = Integer.parseInt(outputs.getOrDefault(WORKER_MEMORY_OUTPUT,
                Integer.toString(DEFAULT_WORKER_MEMORY_MB)));
        String modelId = settings.modelId() != null ? settings.modelId()
                : settings.dryRun() && !outputs.containsKey(SHAPER_API_OUTPUT) ? "the shaper's id" : shaperModelId(URI.create(require(outputs, SHAPER_API_OUTPUT, settings.stackName())), region,
                settings.modelKey());

        RunSchedule schedule = RunSchedule.of(settings.scenario(), settings.seed());
        WorkerSizing sizing = WorkerSizing.of(schedule, settings.scenario(), settings.arms(),
                settings.inFlightPerWorker());
        int workers = settings.workers() != null ? settings.workers() : sizing.workers();
        String runId = RequestIds.newRunId(Instant.now(), new SplittableRandom(System.nanoTime()));
        long start = clock.nowMillis() + START_DELAY_MILLIS;
        WindowPlan plan = WindowPlan.of(schedule, workers, Math.round(settings.windowMinutes() * 60_000),
                WindowPlan.DEFAULT_LEAD_MILLIS, BedrockArm.CALL_TIMEOUT.toMillis(), start);
        long drainDeadline = start + schedule.lastArrivalMillis() + Math.round(settings.drainMinutes() * 60_000);
        CostEstimate.Prices prices = CostEstimate.Prices.defaults(settings.inputPricePerMillion(),
                settings.outputPricePerMillion());
        CostEstimate cost = CostEstimate.of(schedule, settings.arms(), plan, workerMemory, settings.drainMinutes(),
                prices);

        out.printf(Locale.ROOT, "run %s on stack %s (%s): scenario %s, seed %d, %,d requests × %d arms, model %s (%s)%n",
                runId, settings.stackName(), region.id(), settings.scenario().name(), settings.seed(), schedule.size(),
                settings.arms().size(), settings.modelKey(), modelId);
        out.println(settings.workers() != null ? workers + " workers (--workers; " + sizing.explain() + ")"
                : sizing.explain());
        out.printf(Locale.ROOT, "%d worker invocations (%s-minute windows), the schedule runs %.1f min and the reconcile"
                        + " step waits up to %.0f min after it for the shaper's outcomes%n", plan.items().size(),
                trim(settings.windowMinutes()), schedule.lastArrivalMillis() / 60_000.0, settings.drainMinutes());
        out.println();
        out.print(cost.render(prices));
        out.flush();
        if (settings.dryRun()) {
            out.println();
            out.println("--dry-run: nothing started.");
            out.flush();
            return 0;
        }

        String stateMachine = require(outputs, STATE_MACHINE_OUTPUT, settings.stackName());
        String bucket = require(outputs, BUCKET_OUTPUT, settings.stackName());
        RunManifest manifest = RunManifest.of(runId, RunManifest.AWS, settings.scenario(), settings.seed(),
                settings.arms(), settings.modelKey(), modelId, 1.0, start, workers,
                Math.round(settings.windowMinutes() * 60_000), drainDeadline, settings.deadlineSeconds(),
                schedule.size());
        try (S3Client s3 = S3Client.builder().region(region).httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
             SfnClient sfn = SfnClient.builder().region(region).httpClientBuilder(UrlConnectionHttpClient.builder())
                     .build()) {
            S3ObjectStore store = new S3ObjectStore(s3, bucket, RunLayout.runPrefix(runId));
            manifest.write(store);
            store.put(RunLayout.ITEMS, LoadTestJson.line(plan.items()).getBytes(StandardCharsets.UTF_8));
            String input = LoadTestJson.line(Map.of("runId", runId,
                    "itemsKey", RunLayout.runPrefix(runId) + RunLayout.ITEMS,
                    "maxConcurrency", Math.max(1, plan.items().size())));
            String execution = sfn.startExecution(r -> r.stateMachineArn(stateMachine).name(runId).input(input))
                    .executionArn();
            out.println();
            out.println("started " + execution);
            out.println("files: " + store.describe() + "  (stop early: aws stepfunctions stop-execution"
                    + " --execution-arn " + execution + ")");
            out.flush();
            ExecutionStatus status = follow(sfn, store, execution, start, out, clock);
            Path reportDir = settings.out() != null ? settings.out() : Path.of("loadtest-out", runId);
            LoadTestReport.Report report = LoadTestReport.produce(store, reportDir);
            out.println();
            out.print(report.text());
            out.flush();
            return status == ExecutionStatus.SUCCEEDED && report.reconciliation().complete() ? 0 : 1;
        }
    }

    /** The given region, else the SDK's chain; a dry run without either plans for us-east-1. */
    private static Region region(AwsRunSettings settings) {
        if (settings.region() != null) {
            return Region.of(settings.region());
        }
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (SdkClientException e) {
            if (settings.dryRun()) {
                return Region.US_EAST_1;
            }
            throw new IllegalArgumentException("no AWS region: pass --region or set AWS_REGION", e);
        }
    }

    /**
     * Streams the run's progress until its execution ends, one line every {@link #PROGRESS_MILLIS}.
     * Step Functions pushes nothing to a caller outside AWS, so this polls {@code DescribeExecution};
     * it waits on {@code clock}, so a test plays it on fake time and an interrupt stops it.
     */
    static ExecutionStatus follow(SfnClient sfn, ObjectStore store, String execution, long start,
                                  PrintWriter out, DrainClock clock) throws InterruptedException {
        long next = clock.nowMillis();
        while (true) {
            next += PROGRESS_MILLIS;
            clock.sleepUntil(next);
            DescribeExecutionResponse described = sfn.describeExecution(r -> r.executionArn(execution));
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %+6d s  %s",
                    (clock.nowMillis() - start) / 1_000, described.status()));
            List<MapRunListItem> mapRuns = sfn.listMapRuns(r -> r.executionArn(execution)).mapRuns();
            if (!mapRuns.isEmpty()) {
                MapRunItemCounts items = sfn.describeMapRun(r -> r.mapRunArn(mapRuns.get(0).mapRunArn())).itemCounts();
                line.append(String.format(Locale.ROOT, " · worker items: %d waiting or running, %d done, %d failed of %d",
                        items.pending() + items.running(), items.succeeded(),
                        items.failed() + items.timedOut() + items.aborted(), items.total()));
            }
            store.get(RunLayout.SUMMARY).ifPresent(bytes -> line.append(" · outcomes: ").append(summaryLine(
                    new String(bytes, StandardCharsets.UTF_8))));
            out.println(line);
            out.flush();
            if (described.status() != ExecutionStatus.RUNNING) {
                if (described.status() != ExecutionStatus.SUCCEEDED) {
                    out.println("the run's execution ended " + described.status() + (described.cause() == null ? ""
                            : ": " + described.error() + " " + described.cause()));
                }
                return described.status();
            }
        }
    }

    private static String summaryLine(String summary) {
        StringBuilder line = new StringBuilder();
        LoadTestJson.tree(summary).path("arms").properties().forEach(arm -> {
            long scheduled = arm.getValue().path("scheduled").asLong();
            long done = scheduled - arm.getValue().path("lost").asLong();
            line.append(line.length() == 0 ? "" : ", ").append(arm.getKey()).append(' ').append(done).append('/')
                    .append(scheduled);
        });
        return line.toString();
    }

    private static Map<String, String> stackOutputs(Region region, String stackName) {
        try (CloudFormationClient cloudFormation = CloudFormationClient.builder().region(region)
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            List<Stack> stacks = cloudFormation.describeStacks(r -> r.stackName(stackName)).stacks();
            Map<String, String> outputs = new HashMap<>();
            for (Output output : stacks.get(0).outputs()) {
                outputs.put(output.outputKey(), output.outputValue());
            }
            return outputs;
        }
    }

    private static String shaperModelId(URI api, Region region, String modelKey) {
        try (ShaperClient shaper = ShaperClient.builder().baseUri(api).signer(AwsSigV4Signer.create(region.id()))
                .build()) {
            return shaper.models().model(modelKey).flatMap(ModelInfo::modelId).orElseThrow(() ->
                    new IllegalArgumentException("the shaper at " + api + " has no model '" + modelKey
                            + "' with a model id; give --model-id for the direct arms"));
        }
    }

    private static String require(Map<String, String> outputs, String name, String stackName) {
        String value = outputs.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("stack " + stackName + " has no output " + name
                    + ": is it a TrafficShaperLoadTest stack?");
        }
        return value;
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
