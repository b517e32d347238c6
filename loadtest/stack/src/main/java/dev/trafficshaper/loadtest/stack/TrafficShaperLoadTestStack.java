package dev.trafficshaper.loadtest.stack;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.CfnParameter;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.Tags;
import software.amazon.awscdk.services.events.EventPattern;
import software.amazon.awscdk.services.events.IEventBus;
import software.amazon.awscdk.services.events.EventBus;
import software.amazon.awscdk.services.events.Match;
import software.amazon.awscdk.services.events.Rule;
import software.amazon.awscdk.services.events.targets.SqsQueue;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.eventsources.SqsEventSource;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.s3.BlockPublicAccess;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.s3.BucketEncryption;
import software.amazon.awscdk.services.s3.LifecycleRule;
import software.amazon.awscdk.services.s3.ObjectOwnership;
import software.amazon.awscdk.services.sqs.DeadLetterQueue;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.stepfunctions.DefinitionBody;
import software.amazon.awscdk.services.stepfunctions.LogLevel;
import software.amazon.awscdk.services.stepfunctions.LogOptions;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.amazon.awscdk.services.stepfunctions.StateMachineType;
import software.constructs.Construct;

/**
 * {@code TrafficShaperLoadTest}: the distributed load-test harness, deployed beside a shaper stack.
 *
 * <ul>
 *   <li>a results bucket: each run's manifest, the Distributed Map's items, the outcome lines and the
 *       reconciled report, under {@code runs/<id>/};
 *   <li>the run's state machine ({@code statemachines/loadtest-run.asl.json}): a Distributed Map of
 *       Standard child executions, one per worker and time window, each waiting for its window and
 *       invoking the worker function; then the reconcile function, every 30 s until done;
 *   <li>the worker function: plays its slice against Bedrock (the direct arms) and the shaper's API
 *       (SigV4), writes outcome lines to the bucket;
 *   <li>a rule on the shaper's outcome bus for the load test's request ids, a queue, and the outcome
 *       recorder, which writes the shaper arm's terminal outcomes to the bucket (the load path never
 *       polls the shaper).
 * </ul>
 *
 * <p>It is pointed at a shaper stack by two parameters, both outputs of that stack:
 * {@value #API_PARAMETER} (its {@code ApiStageUrl}) and {@value #BUS_PARAMETER} (its
 * {@code EventBusName}). Every role holds only what its function does: the worker may read its
 * run's manifest, write outcome objects, call {@code POST /v1/requests} and {@code GET /v1/models} of
 * that API and invoke the models of the models file, nothing else.
 */
public final class TrafficShaperLoadTestStack extends Stack {

    public static final String API_PARAMETER = "ShaperApiStageUrl";
    public static final String BUS_PARAMETER = "ShaperEventBusName";
    public static final int WORKER_MEMORY_MB = 2_048;
    static final String WORKER_HANDLER = "dev.trafficshaper.loadtest.aws.WorkerHandler::handleRequest";
    static final String RECORDER_HANDLER = "dev.trafficshaper.loadtest.aws.OutcomeRecorderHandler::handleRequest";
    static final String RECONCILER_HANDLER = "dev.trafficshaper.loadtest.aws.ReconcileHandler::handleRequest";
    /** Matches the shaper's outcome events (EventBridgeOutcomeEvents) for load-test request ids (RequestIds). */
    static final String EVENT_SOURCE = "traffic-shaper";
    static final String EVENT_DETAIL_TYPE = "Shaped request finished";
    static final String REQUEST_ID_PREFIX = "lt-";

    private final Bucket results;
    private final Bucket accessLogs;
    private final HarnessFunction worker;
    private final HarnessFunction recorder;
    private final HarnessFunction reconciler;
    private final Queue outcomeEvents;
    private final Queue outcomeEventsDeadLetters;
    private final StateMachine run;

    public TrafficShaperLoadTestStack(Construct scope, String id, StackProps props, LoadTestSettings settings,
                                      Path statemachines) {
        super(scope, id, props);
        Tags.of(this).add("application", "traffic-shaper-loadtest");
        CfnParameter api = CfnParameter.Builder.create(this, API_PARAMETER)
                .type("String")
                .description("The shaper stack's ApiStageUrl output, e.g. https://abc123.execute-api.eu-west-1"
                        + ".amazonaws.com/dev/")
                .allowedPattern("^https://[a-z0-9]+\\.execute-api\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?/[A-Za-z0-9_-]+/$")
                .constraintDescription("the ApiStageUrl output of a TrafficShaper stack, ending in /")
                .build();
        CfnParameter bus = CfnParameter.Builder.create(this, BUS_PARAMETER)
                .type("String")
                .description("The shaper stack's EventBusName output: where its terminal-outcome events go")
                .allowedPattern("^[A-Za-z0-9._-]{1,256}$")
                .build();
        String apiId = Fn.select(0, Fn.split(".", Fn.select(2, Fn.split("/", api.getValueAsString()))));
        String apiStage = Fn.select(3, Fn.split("/", api.getValueAsString()));

        this.accessLogs = Bucket.Builder.create(this, "AccessLogs")
                .encryption(BucketEncryption.S3_MANAGED)
                .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
                .enforceSsl(true)
                .objectOwnership(ObjectOwnership.BUCKET_OWNER_PREFERRED)
                .lifecycleRules(List.of(LifecycleRule.builder().id("expire-access-logs")
                        .expiration(Duration.days(settings.resultsRetentionDays())).build()))
                .removalPolicy(RemovalPolicy.DESTROY)
                .build();
        this.results = Bucket.Builder.create(this, "Results")
                .encryption(BucketEncryption.S3_MANAGED)
                .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
                .enforceSsl(true)
                .objectOwnership(ObjectOwnership.BUCKET_OWNER_ENFORCED)
                .serverAccessLogsBucket(accessLogs)
                .serverAccessLogsPrefix("results/")
                .lifecycleRules(List.of(LifecycleRule.builder().id("expire-runs")
                        .expiration(Duration.days(settings.resultsRetentionDays()))
                        .abortIncompleteMultipartUploadAfter(Duration.days(1)).build()))
                .removalPolicy(RemovalPolicy.DESTROY)
                .build();

        Code code = Code.fromAsset(settings.loadtestJar().toString());
        String prefix = settings.stackName();
        this.worker = new HarnessFunction(this, "Worker", prefix + "-worker", WORKER_HANDLER,
                "Plays one worker's slice of a load-test schedule against Bedrock and the shaper's API",
                WORKER_MEMORY_MB, Duration.minutes(15), code,
                Map.of("RESULTS_BUCKET", results.getBucketName(), "SHAPER_API_URL", api.getValueAsString()));
        this.recorder = new HarnessFunction(this, "Recorder", prefix + "-recorder", RECORDER_HANDLER,
                "Writes the shaper's terminal-outcome events for load-test requests to the results bucket",
                512, Duration.minutes(1), code, Map.of("RESULTS_BUCKET", results.getBucketName()));
        this.reconciler = new HarnessFunction(this, "Reconciler", prefix + "-reconciler", RECONCILER_HANDLER,
                "Reconciles a load-test run's outcomes with its schedule by request id",
                2_048, Duration.minutes(5), code, Map.of("RESULTS_BUCKET", results.getBucketName()));

        worker.allow(statement(List.of("s3:GetObject"), List.of(results.arnForObjects("runs/*/run.json"))));
        worker.allow(statement(List.of("s3:PutObject"), List.of(results.arnForObjects("runs/*/outcomes/*"))));
        worker.allow(statement(List.of("execute-api:Invoke"), List.of(
                apiRoute(apiId, apiStage, "POST/v1/requests"), apiRoute(apiId, apiStage, "GET/v1/models"))));
        worker.allow(statement(List.of("bedrock:InvokeModel", "bedrock:CountTokens"),
                BedrockModelArns.of(this, settings.models().all())));
        recorder.allow(statement(List.of("s3:PutObject"), List.of(results.arnForObjects("runs/*/outcomes/shaper/*"))));
        reconciler.allow(PolicyStatement.Builder.create()
                .actions(List.of("s3:ListBucket"))
                .resources(List.of(results.getBucketArn()))
                .conditions(Map.of("StringLike", Map.of("s3:prefix", List.of("runs/*"))))
                .build());
        reconciler.allow(statement(List.of("s3:GetObject"), List.of(results.arnForObjects("runs/*"))));
        reconciler.allow(statement(List.of("s3:PutObject"), List.of(results.arnForObjects("runs/*/report/*"))));

        this.outcomeEventsDeadLetters = Queue.Builder.create(this, "OutcomeEventsDeadLetters")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .retentionPeriod(Duration.days(14))
                .build();
        this.outcomeEvents = Queue.Builder.create(this, "OutcomeEvents")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .visibilityTimeout(Duration.minutes(6))
                .deadLetterQueue(DeadLetterQueue.builder().queue(outcomeEventsDeadLetters).maxReceiveCount(5).build())
                .build();
        IEventBus shaperBus = EventBus.fromEventBusName(this, "ShaperOutcomes", bus.getValueAsString());
        Rule.Builder.create(this, "LoadTestOutcomes")
                .description("The shaper's terminal outcomes of load-test requests (ids lt-...), for the recorder")
                .eventBus(shaperBus)
                .eventPattern(EventPattern.builder()
                        .source(List.of(EVENT_SOURCE))
                        .detailType(List.of(EVENT_DETAIL_TYPE))
                        .detail(Map.of("requestId", Match.prefix(REQUEST_ID_PREFIX)))
                        .build())
                .targets(List.of(new SqsQueue(outcomeEvents)))
                .build();
        recorder.function().addEventSource(SqsEventSource.Builder.create(outcomeEvents)
                .batchSize(100)
                .maxBatchingWindow(Duration.seconds(5))
                .build());

        String stateMachineName = prefix + "-run";
        LogGroup runLogs = LogGroup.Builder.create(this, "RunLogs")
                .logGroupName("/aws/vendedlogs/states/" + stateMachineName)
                .retention(RetentionDays.TWO_WEEKS)
                .removalPolicy(RemovalPolicy.DESTROY)
                .build();
        Map<String, String> substitutions = Map.of(
                "Partition", getPartition(),
                "LoadTestWorkerFunctionArn", worker.function().getFunctionArn(),
                "LoadTestReconcilerFunctionArn", reconciler.function().getFunctionArn(),
                "LoadTestResultsBucket", results.getBucketName());
        this.run = StateMachine.Builder.create(this, "Run")
                .stateMachineName(stateMachineName)
                .stateMachineType(StateMachineType.STANDARD)
                .definitionBody(DefinitionBody.fromString(RunDefinition.read(statemachines, substitutions.keySet())))
                .definitionSubstitutions(substitutions)
                .tracingEnabled(true)
                .logs(LogOptions.builder().destination(runLogs).level(LogLevel.ALL).includeExecutionData(false).build())
                .build();
        run.addToRolePolicy(statement(List.of("lambda:InvokeFunction"), List.of(worker.function().getFunctionArn(),
                reconciler.function().getFunctionArn())));
        run.addToRolePolicy(statement(List.of("s3:GetObject"), List.of(results.arnForObjects("runs/*/items.json"))));
        run.addToRolePolicy(statement(List.of("states:StartExecution"), List.of(formatArn(ArnComponents.builder()
                .service("states").resource("stateMachine").resourceName(stateMachineName)
                .arnFormat(ArnFormat.COLON_RESOURCE_NAME).build()))));
        run.addToRolePolicy(statement(List.of("states:DescribeExecution", "states:StopExecution"),
                List.of(formatArn(ArnComponents.builder().service("states").resource("execution")
                        .resourceName(stateMachineName + "/*").arnFormat(ArnFormat.COLON_RESOURCE_NAME).build()))));

        new LoadTestNagSuppressions(this).apply();
        output("StateMachineArn", run.getStateMachineArn(), "The run's state machine: loadtest run --aws starts it");
        output("ResultsBucketName", results.getBucketName(), "Manifests, outcome lines and reports, under runs/<id>/");
        output(API_PARAMETER, api.getValueAsString(), "The shaper API the workers call");
        output("WorkerMemoryMb", Integer.toString(WORKER_MEMORY_MB), "The worker function's memory, for the cost"
                + " estimate");
    }

    private String apiRoute(String apiId, String stage, String route) {
        return formatArn(ArnComponents.builder().service("execute-api").resource(apiId)
                .resourceName(stage + "/" + route).arnFormat(ArnFormat.SLASH_RESOURCE_NAME).build());
    }

    private static PolicyStatement statement(List<String> actions, List<String> resources) {
        return PolicyStatement.Builder.create().actions(actions).resources(resources).build();
    }

    private void output(String id, String value, String description) {
        CfnOutput.Builder.create(this, id + "Output").key(id).value(value).description(description).build();
    }

    Bucket results() {
        return results;
    }

    Bucket accessLogs() {
        return accessLogs;
    }

    HarnessFunction worker() {
        return worker;
    }

    HarnessFunction recorder() {
        return recorder;
    }

    HarnessFunction reconciler() {
        return reconciler;
    }

    Queue outcomeEvents() {
        return outcomeEvents;
    }

    Queue outcomeEventsDeadLetters() {
        return outcomeEventsDeadLetters;
    }

    StateMachine run() {
        return run;
    }
}
