package dev.trafficshaper.infra.compute;

import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.infra.config.ResourceNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.EventInvokeConfigOptions;
import software.amazon.awscdk.services.lambda.destinations.SqsDestination;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.ssm.ParameterTier;
import software.amazon.awscdk.services.ssm.StringParameter;
import software.constructs.Construct;

/**
 * The seven Lambda functions of the shaper, their shared environment and a least-privilege role
 * each. Functions find each other and the state machine by constructed ARNs (see
 * {@link ResourceNames}), so no grant here creates a dependency cycle.
 */
public final class ShaperFunctions extends Construct {

    public static final String SERVICE_NAME = "traffic-shaper";
    public static final String METRICS_NAMESPACE = "TrafficShaper";

    public static final FunctionSpec SUBMIT = new FunctionSpec("submit",
            "dev.trafficshaper.functions.submit.SubmitHandler",
            "POST /v1/requests: validates, stores a large prompt, starts the request's execution",
            1024, Duration.seconds(15), null);
    public static final FunctionSpec BUDGET_MANAGER = new FunctionSpec("budget-manager",
            "dev.trafficshaper.functions.budget.BudgetManagerHandler",
            "Admit task: estimates, enqueues to a shard, keeps the task token, wakes the drainer",
            1024, Duration.seconds(30), null);
    public static final FunctionSpec BEDROCK_PROCESSOR = new FunctionSpec("bedrock-processor",
            "dev.trafficshaper.functions.invoke.BedrockProcessorHandler",
            "Invokes Bedrock once with SDK retries off, stores the result, settles usage, returns the token",
            512, Duration.minutes(15), null);
    public static final FunctionSpec FINALIZER = new FunctionSpec("finalizer",
            "dev.trafficshaper.functions.finalize.FinalizerHandler",
            "Records the honest terminal outcome of a request that timed out, failed or was aborted",
            512, Duration.seconds(30), null);
    public static final FunctionSpec STATUS = new FunctionSpec("status",
            "dev.trafficshaper.functions.status.StatusHandler",
            "GET /v1/requests/{id} and GET /v1/models",
            1024, Duration.seconds(10), null);
    public static final FunctionSpec NOTIFIER = new FunctionSpec("notifier",
            "dev.trafficshaper.functions.notify.NotifierHandler",
            "Delivers the terminal outcome: signed webhook and EventBridge event",
            512, Duration.seconds(60), null);

    private static final List<String> TABLE_READ = List.of(
            "dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:ConditionCheckItem");
    private static final List<String> TABLE_WRITE = List.of(
            "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem");
    private static final List<String> TASK_RESPONSE = List.of(
            "states:SendTaskSuccess", "states:SendTaskFailure", "states:SendTaskHeartbeat");

    private final ShaperFunctionsProps props;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private final Queue bedrockProcessorDeadLetters;
    private final ShaperFunction submit;
    private final ShaperFunction budgetManager;
    private final ShaperFunction queueProcessor;
    private final ShaperFunction bedrockProcessor;
    private final ShaperFunction finalizer;
    private final ShaperFunction status;
    private final ShaperFunction notifier;
    private StringParameter modelsParameter;

    public ShaperFunctions(Construct scope, String id, ShaperFunctionsProps props) {
        super(scope, id);
        this.props = props;
        ResourceNames names = props.names();
        environment.put("TABLE_NAME", props.table().tableName());
        environment.put("PAYLOAD_BUCKET", props.payloads().bucketName());
        environment.put("STATE_MACHINE_ARN", names.stateMachineArn(this));
        environment.put("EVENT_BUS_NAME", props.eventBus().getEventBusName());
        environment.put("QUEUE_PROCESSOR_FUNCTION", names.functionAliasArn(this, queueProcessorSpec().purpose()));
        environment.put("BEDROCK_PROCESSOR_FUNCTION", names.functionAliasArn(this, BEDROCK_PROCESSOR.purpose()));
        environment.put("WEBHOOK_SECRET_ARN", props.webhookSecret().getSecretArn());
        environment.put("POWERTOOLS_SERVICE_NAME", SERVICE_NAME);
        environment.put("POWERTOOLS_METRICS_NAMESPACE", METRICS_NAMESPACE);
        putModelsConfiguration(props.models());

        this.bedrockProcessorDeadLetters = Queue.Builder.create(this, "BedrockProcessorDeadLetters")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .retentionPeriod(Duration.days(14))
                .build();

        this.submit = create("Submit", SUBMIT);
        this.budgetManager = create("BudgetManager", BUDGET_MANAGER);
        this.queueProcessor = create("QueueProcessor", queueProcessorSpec());
        this.bedrockProcessor = create("BedrockProcessor", BEDROCK_PROCESSOR);
        this.finalizer = create("Finalizer", FINALIZER);
        this.status = create("Status", STATUS);
        this.notifier = create("Notifier", NOTIFIER);

        configureAsyncInvocations();
        grantPermissions();
    }

    /**
     * One lease-holding drainer per model plus a successor for each during hand-off. The cap keeps
     * a burst of wake-up invocations from starving the account's concurrency; wake-ups beyond it
     * are throttled and dropped, which is harmless because the running drainer already sees the work.
     */
    private FunctionSpec queueProcessorSpec() {
        int drainers = Math.max(2, 2 * props.models().models().size());
        return new FunctionSpec("queue-processor",
                "dev.trafficshaper.functions.drain.QueueProcessorHandler",
                "Drains the model queues at the paced rate; holds one lease per model, hands off before the time limit",
                1024, Duration.minutes(15), drainers);
    }

    private void putModelsConfiguration(ModelsConfiguration models) {
        if (models.fitsInline()) {
            environment.put("MODELS_CONFIG", models.compactJson());
            return;
        }
        modelsParameter = StringParameter.Builder.create(this, "ModelsParameter")
                .parameterName("/" + props.names().prefix() + "/models")
                .description("The models file the functions read: " + models.modelKeys())
                .stringValue(models.compactJson())
                .tier(models.compactJson().length() > 4_000 ? ParameterTier.ADVANCED : ParameterTier.STANDARD)
                .build();
        environment.put("MODELS_PARAMETER", modelsParameter.getParameterName());
    }

    private ShaperFunction create(String id, FunctionSpec spec) {
        boolean production = props.stage().production();
        return new ShaperFunction(this, id, props.names().functionName(spec.purpose()), spec, props.code(),
                environment,
                production ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS,
                production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);
    }

    /**
     * The Bedrock Processor is invoked asynchronously by the drainer and must call Bedrock at most
     * once per dispatch, so Lambda may not retry it; a failed or expired event goes to the DLQ
     * instead of vanishing. Drainer wake-ups are disposable: no retries and a one-minute lifetime.
     */
    private void configureAsyncInvocations() {
        bedrockProcessor.alias().configureAsyncInvoke(EventInvokeConfigOptions.builder()
                .retryAttempts(0)
                .maxEventAge(Duration.hours(1))
                .onFailure(new SqsDestination(bedrockProcessorDeadLetters))
                .build());
        queueProcessor.alias().configureAsyncInvoke(EventInvokeConfigOptions.builder()
                .retryAttempts(0)
                .maxEventAge(Duration.minutes(1))
                .build());
    }

    private void grantPermissions() {
        ResourceNames names = props.names();
        for (ShaperFunction fn : all()) {
            fn.allow(statement(TABLE_READ, props.table().tableArn()));
            fn.allow(statement(List.of("kms:Decrypt", "kms:DescribeKey"), props.key().getKeyArn()));
            if (modelsParameter != null) {
                fn.allow(statement(List.of("ssm:GetParameter"), modelsParameter.getParameterArn()));
            }
        }
        for (ShaperFunction fn : List.of(budgetManager, queueProcessor, bedrockProcessor, finalizer, notifier)) {
            fn.allow(statement(TABLE_WRITE, props.table().tableArn()));
        }
        for (ShaperFunction fn : List.of(submit, budgetManager, queueProcessor, bedrockProcessor, finalizer,
                notifier)) {
            fn.allow(statement(List.of("kms:Encrypt", "kms:GenerateDataKey"), props.key().getKeyArn()));
        }
        for (ShaperFunction fn : List.of(submit, budgetManager, bedrockProcessor)) {
            fn.allow(statement(List.of("s3:PutObject"), props.payloads().objectsArn()));
        }
        for (ShaperFunction fn : List.of(budgetManager, bedrockProcessor, status, notifier)) {
            fn.allow(statement(List.of("s3:GetObject"), props.payloads().objectsArn()));
        }
        for (ShaperFunction fn : List.of(budgetManager, queueProcessor, bedrockProcessor)) {
            fn.allow(statement(TASK_RESPONSE, names.stateMachineArn(this)));
        }
        submit.allow(statement(List.of("states:StartExecution"), names.stateMachineArn(this)));
        budgetManager.allow(statement(List.of("lambda:InvokeFunction"),
                names.functionAliasArn(this, queueProcessorSpec().purpose())));
        queueProcessor.allow(statement(List.of("lambda:InvokeFunction"),
                names.functionAliasArn(this, queueProcessorSpec().purpose()),
                names.functionAliasArn(this, BEDROCK_PROCESSOR.purpose())));
        bedrockProcessor.allow(statement(List.of("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"),
                BedrockModelArns.of(this, props.models().models()).toArray(String[]::new)));
        notifier.allow(statement(List.of("events:PutEvents"), props.eventBus().getEventBusArn()));
        notifier.allow(statement(List.of("secretsmanager:GetSecretValue"), props.webhookSecret().getSecretArn()));
    }

    private static PolicyStatement statement(List<String> actions, String... resources) {
        return PolicyStatement.Builder.create().actions(actions).resources(List.of(resources)).build();
    }

    public List<ShaperFunction> all() {
        return List.of(submit, budgetManager, queueProcessor, bedrockProcessor, finalizer, status, notifier);
    }

    public Map<String, String> environment() {
        return Map.copyOf(environment);
    }

    public Queue bedrockProcessorDeadLetters() {
        return bedrockProcessorDeadLetters;
    }

    public ShaperFunction submit() {
        return submit;
    }

    public ShaperFunction budgetManager() {
        return budgetManager;
    }

    public ShaperFunction queueProcessor() {
        return queueProcessor;
    }

    public ShaperFunction bedrockProcessor() {
        return bedrockProcessor;
    }

    public ShaperFunction finalizer() {
        return finalizer;
    }

    public ShaperFunction status() {
        return status;
    }

    public ShaperFunction notifier() {
        return notifier;
    }
}
