package dev.trafficshaper.infra.compute;

import dev.trafficshaper.model.BackendSettings;

import dev.trafficshaper.aws.s3.S3PayloadObjects;
import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.infra.config.ResourceNames;
import dev.trafficshaper.delivery.DeliverySchedule;
import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.InvocationService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.EventInvokeConfigOptions;
import software.amazon.awscdk.services.lambda.destinations.SqsDestination;
import software.amazon.awscdk.services.lambda.eventsources.SqsEventSource;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.sqs.DeadLetterQueue;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.ssm.ParameterTier;
import software.amazon.awscdk.services.ssm.StringParameter;
import software.constructs.Construct;

/**
 * The seven Lambda functions of the shaper, the environment each one's code reads and a
 * least-privilege role each. Functions find each other and the state machine by constructed ARNs
 * (see {@link ResourceNames}), so no grant here creates a dependency cycle.
 *
 * <p>The environment and the grants follow the code, not a template: {@code functions/.../Shaper.java}
 * is the composition root every handler goes through, and each grant below names the service
 * call that needs it. The infra tests run that composition root with each function's synthesized
 * environment, so a variable the code reads but the stack does not set fails the build.
 */
public final class ShaperFunctions extends Construct {

    public static final String SERVICE_NAME = "traffic-shaper";
    public static final String METRICS_NAMESPACE = "TrafficShaper";
    public static final String LOG_LEVEL = "INFO";

    public static final String TABLE_NAME = "TABLE_NAME";
    public static final String PAYLOAD_BUCKET = "PAYLOAD_BUCKET";
    public static final String MODELS_CONFIG = "MODELS_CONFIG";
    public static final String MODELS_PARAMETER = "MODELS_PARAMETER";
    public static final String STATE_MACHINE_ARN = "STATE_MACHINE_ARN";
    public static final String EVENT_BUS_NAME = "EVENT_BUS_NAME";
    public static final String QUEUE_PROCESSOR_FUNCTION = "QUEUE_PROCESSOR_FUNCTION";
    public static final String BEDROCK_PROCESSOR_FUNCTION = "BEDROCK_PROCESSOR_FUNCTION";
    public static final String WEBHOOK_SECRET_ARN = "WEBHOOK_SECRET_ARN";
    public static final String DELIVERY_QUEUE_URL = "DELIVERY_QUEUE_URL";
    public static final String WEBHOOK_MAX_ATTEMPTS = "WEBHOOK_MAX_ATTEMPTS";
    public static final String WEBHOOK_FIRST_RETRY_SECONDS = "WEBHOOK_FIRST_RETRY_SECONDS";
    public static final String WEBHOOK_MAX_RETRY_SECONDS = "WEBHOOK_MAX_RETRY_SECONDS";
    /** How the drainer sends admitted requests to Bedrock: {@code inline} (it calls) or {@code async}. */
    public static final String DISPATCH_MODE = "DISPATCH_MODE";
    /** The most calls one drainer runs itself at once; one more goes to the Bedrock Processor. */
    public static final String INLINE_CALLS = "INLINE_CALLS";
    /** The dispatch mode the stack deploys. */
    public static final DispatchMode DEPLOYED_DISPATCH = DispatchMode.INLINE;

    public static final String POWERTOOLS_SERVICE_NAME = "POWERTOOLS_SERVICE_NAME";
    public static final String POWERTOOLS_LOG_LEVEL = "POWERTOOLS_LOG_LEVEL";
    public static final String POWERTOOLS_METRICS_NAMESPACE = "POWERTOOLS_METRICS_NAMESPACE";

    /**
     * Read by every function: each builds the table and payload adapters together (so even one that
     * never touches S3 needs the bucket name) and reads the models file; the Powertools log layout
     * reads the service name, the log configuration the level. {@code MODELS_CONFIG} stands for
     * {@code MODELS_PARAMETER} when the models file is too large for the environment.
     */
    public static final List<String> COMMON_VARIABLES = List.of(TABLE_NAME, PAYLOAD_BUCKET, MODELS_CONFIG,
            POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL);
    /**
     * Whoever may wake a drainer builds the asynchronous invoker, which names both functions; the
     * same functions publish metrics.
     */
    private static final List<String> ASYNC_INVOKES_AND_METRICS = List.of(QUEUE_PROCESSOR_FUNCTION,
            BEDROCK_PROCESSOR_FUNCTION, POWERTOOLS_METRICS_NAMESPACE);
    /**
     * What the delivery hand-off needs: a function that writes a terminal state publishes the
     * outcome event and queues the webhook before it resumes the execution.
     */
    private static final List<String> DELIVERY_HANDOFF = List.of(EVENT_BUS_NAME, DELIVERY_QUEUE_URL);

    /** Lambda's limit for one invocation. */
    public static final java.time.Duration LAMBDA_LIMIT = java.time.Duration.ofMinutes(15);
    /**
     * The Bedrock Processor's timeout: the longest Bedrock call ({@link InvocationService#MAX_CALL}) plus
     * headroom for reading the body and writing result, usage and status, within Lambda's limit.
     */
    static final java.time.Duration BEDROCK_PROCESSOR_TIMEOUT = bedrockProcessorTimeout(InvocationService.MAX_CALL);
    /**
     * One delivery-queue batch: {@link #DELIVERY_BATCH} attempts side by side, each within 2 s to
     * connect and 5 s in all ({@code ShaperPorts.WEBHOOK_CONNECT_TIMEOUT}, {@code WEBHOOK_TIMEOUT}),
     * plus the status reads and writes and, on a cold start, the secret: a batch normally ends
     * within seconds, and the Notifier stops waiting for its attempts 2 s before this limit. The
     * delivery queue's visibility timeout is the same, as the event source mapping requires.
     */
    static final Duration NOTIFIER_TIMEOUT = Duration.seconds(90);
    /** Messages per Notifier invocation from the delivery queue. */
    public static final int DELIVERY_BATCH = 5;
    /**
     * Notifier invocations the delivery queue may run at once (the event source mapping's maximum
     * concurrency): a dead receiver holds at most this many, for one attempt's timeout (5 s) each,
     * whatever the number of webhooks waiting; the rest wait in the queue, not in Lambda. The queue
     * is a standard queue whose messages carry their tenant as {@code MessageGroupId}, which makes
     * it an SQS fair queue: a tenant whose receiver is slow or failing takes a large share of these
     * invocations' time and of the messages in flight, so SQS hands the other tenants' webhooks
     * over first. No batching window, so no webhook waits for a batch to fill.
     */
    public static final int DELIVERY_CONCURRENCY = 5;
    /** The webhook schedule the stack deploys; the queue's maxReceiveCount is its attempts. */
    public static final DeliverySchedule DELIVERY_SCHEDULE = DeliverySchedule.defaults();

    public static final FunctionSpec SUBMIT = new FunctionSpec("submit",
            "dev.trafficshaper.functions.submit.SubmitHandler",
            "POST /v1/requests: validates, stores the body, starts the request's execution",
            1024, Duration.seconds(15), null, List.of(STATE_MACHINE_ARN));
    public static final FunctionSpec BUDGET_MANAGER = new FunctionSpec("budget-manager",
            "dev.trafficshaper.functions.budget.BudgetManagerHandler",
            "Admit task: enqueues to a shard with the task token, wakes the drainer if none runs",
            1024, Duration.seconds(30), null, concat(ASYNC_INVOKES_AND_METRICS, DELIVERY_HANDOFF));
    /**
     * Reserved concurrency is set per deployment: see {@link #drainerConcurrency(int)}. It makes the
     * Bedrock calls that fit in its invocation itself, up to {@code INLINE_CALLS} at once: 1,024 MB
     * holds their threads and bodies (a call waits on the network, so CPU is not what it needs).
     */
    public static final FunctionSpec QUEUE_PROCESSOR = new FunctionSpec("queue-processor",
            "dev.trafficshaper.functions.drain.QueueProcessorHandler",
            "Drains the model queues at the paced rate and makes the Bedrock calls that fit in its invocation;"
                    + " holds one lease per model, hands off before the time limit",
            1024, Duration.minutes(15), null, concat(concat(ASYNC_INVOKES_AND_METRICS, DELIVERY_HANDOFF),
                    List.of(DISPATCH_MODE, INLINE_CALLS)));
    /**
     * The asynchronous path: calls that do not fit in a drainer's invocation, or find its threads
     * busy, and the sweeper's re-dispatches. It spends almost all of its billed time waiting for
     * Bedrock's answer, and is billed per MB for it: 256 MB is enough for its clients and one
     * request's bodies (the lifecycle's whole JVM, every function's clients in one, holds well under
     * 100 MB live; see docs/cost-model.md) and costs half of 512 MB for the same wait.
     */
    public static final int BEDROCK_PROCESSOR_MEMORY_MB = 256;
    public static final FunctionSpec BEDROCK_PROCESSOR = new FunctionSpec("bedrock-processor",
            "dev.trafficshaper.functions.invoke.BedrockProcessorHandler",
            "Invokes Bedrock once with SDK retries off, stores the result, settles usage, hands off the delivery, returns the token",
            BEDROCK_PROCESSOR_MEMORY_MB, Duration.seconds(BEDROCK_PROCESSOR_TIMEOUT.toSeconds()), null,
            concat(ASYNC_INVOKES_AND_METRICS, DELIVERY_HANDOFF));
    public static final FunctionSpec FINALIZER = new FunctionSpec("finalizer",
            "dev.trafficshaper.functions.finalize.FinalizerHandler",
            "Records the honest terminal outcome of a request that timed out, failed or was aborted; hands off its delivery if still owed",
            512, Duration.seconds(30), null, concat(List.of(POWERTOOLS_METRICS_NAMESPACE), DELIVERY_HANDOFF));
    public static final FunctionSpec STATUS = new FunctionSpec("status",
            "dev.trafficshaper.functions.status.StatusHandler",
            "GET /v1/requests/{id} and GET /v1/models",
            1024, Duration.seconds(10), null, List.of());
    public static final FunctionSpec NOTIFIER = new FunctionSpec("notifier",
            "dev.trafficshaper.functions.notify.NotifierHandler",
            "Signed webhook attempts from the delivery queue, retried on the delivery schedule",
            512, NOTIFIER_TIMEOUT, null, List.of(WEBHOOK_SECRET_ARN, DELIVERY_QUEUE_URL,
                    WEBHOOK_MAX_ATTEMPTS, WEBHOOK_FIRST_RETRY_SECONDS, WEBHOOK_MAX_RETRY_SECONDS));

    private static final String GET_ITEM = "dynamodb:GetItem";
    private static final String PUT_ITEM = "dynamodb:PutItem";
    private static final String UPDATE_ITEM = "dynamodb:UpdateItem";
    private static final String DELETE_ITEM = "dynamodb:DeleteItem";
    private static final String CONDITION_CHECK_ITEM = "dynamodb:ConditionCheckItem";
    private static final String QUERY = "dynamodb:Query";
    private static final String BATCH_GET_ITEM = "dynamodb:BatchGetItem";
    private static final List<String> TASK_RESPONSE = List.of("states:SendTaskSuccess", "states:SendTaskFailure");
    private static final String DYNAMODB = "dynamodb";
    private static final String S3 = "s3";
    private static final String SECRETS_MANAGER = "secretsmanager";

    private final ShaperFunctionsProps props;
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> environments = new LinkedHashMap<>();
    private final Queue bedrockProcessorDeadLetters;
    private final Queue webhookDeadLetters;
    private final Queue webhooks;
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
        values.put(TABLE_NAME, props.table().tableName());
        values.put(PAYLOAD_BUCKET, props.payloads().bucketName());
        putModelsConfiguration(props.models());
        values.put(POWERTOOLS_SERVICE_NAME, SERVICE_NAME);
        values.put(POWERTOOLS_LOG_LEVEL, LOG_LEVEL);
        values.put(POWERTOOLS_METRICS_NAMESPACE, METRICS_NAMESPACE);
        values.put(STATE_MACHINE_ARN, names.stateMachineArn(this));
        values.put(EVENT_BUS_NAME, props.eventBus().getEventBusName());
        values.put(QUEUE_PROCESSOR_FUNCTION, names.functionAliasArn(this, QUEUE_PROCESSOR.purpose()));
        values.put(BEDROCK_PROCESSOR_FUNCTION, names.functionAliasArn(this, BEDROCK_PROCESSOR.purpose()));
        values.put(WEBHOOK_SECRET_ARN, props.webhookSecret().getSecretArn());
        values.put(DISPATCH_MODE, DEPLOYED_DISPATCH.configName());
        values.put(INLINE_CALLS, Integer.toString(DrainSettings.DEFAULT_INLINE_CALLS));

        this.bedrockProcessorDeadLetters = Queue.Builder.create(this, "BedrockProcessorDeadLetters")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .retentionPeriod(Duration.days(14))
                .build();

        // Webhooks wait in the queue between attempts (visibility timeouts of up to 2 h) and here for a
        // redrive. A standard queue, never FIFO: each tenant's webhooks share a MessageGroupId, which on
        // a standard queue orders nothing and only makes SQS serve the quiet tenants first.
        this.webhookDeadLetters = Queue.Builder.create(this, "WebhookDeadLetters")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .retentionPeriod(Duration.days(14))
                .build();
        this.webhooks = Queue.Builder.create(this, "Webhooks")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .retentionPeriod(Duration.days(4))
                .visibilityTimeout(NOTIFIER_TIMEOUT)
                .deadLetterQueue(DeadLetterQueue.builder().queue(webhookDeadLetters)
                        .maxReceiveCount(DELIVERY_SCHEDULE.maxAttempts()).build())
                .build();
        values.put(DELIVERY_QUEUE_URL, webhooks.getQueueUrl());
        values.put(WEBHOOK_MAX_ATTEMPTS, Integer.toString(DELIVERY_SCHEDULE.maxAttempts()));
        values.put(WEBHOOK_FIRST_RETRY_SECONDS, Long.toString(DELIVERY_SCHEDULE.firstRetryMillis() / 1000));
        values.put(WEBHOOK_MAX_RETRY_SECONDS, Long.toString(DELIVERY_SCHEDULE.maxRetryMillis() / 1000));

        this.submit = create("Submit", SUBMIT);
        this.budgetManager = create("BudgetManager", BUDGET_MANAGER);
        this.queueProcessor = create("QueueProcessor",
                QUEUE_PROCESSOR.withReservedConcurrency(drainerConcurrency(props.models().models().size())));
        this.bedrockProcessor = create("BedrockProcessor", BEDROCK_PROCESSOR);
        this.finalizer = create("Finalizer", FINALIZER);
        this.status = create("Status", STATUS);
        this.notifier = create("Notifier", NOTIFIER);
        notifier.alias().addEventSource(SqsEventSource.Builder.create(webhooks)
                .batchSize(DELIVERY_BATCH)
                .maxConcurrency(DELIVERY_CONCURRENCY)
                .reportBatchItemFailures(true)
                .build());

        configureAsyncInvocations();
        grantPermissions();
    }

    static java.time.Duration bedrockProcessorTimeout(java.time.Duration maxCall) {
        java.time.Duration timeout = maxCall.plusMinutes(5);
        if (timeout.compareTo(LAMBDA_LIMIT) > 0) {
            throw new IllegalStateException("a Bedrock call may last " + maxCall + ", which leaves the Bedrock"
                    + " Processor less than 5 minutes for its writes within Lambda's 15-minute limit");
        }
        return timeout;
    }

    /**
     * The Queue Processor's reserved concurrency: per model, the lease-holding drainer, its successor
     * during a hand-off (the predecessor is still publishing and releasing when the successor
     * starts), and a predecessor still finishing the calls it made after it handed off (seconds
     * usually, as long as Bedrock takes); plus two for the 1-minute safety-net run and a wake-up that
     * arrives while a model's slots are taken. Other wake-ups find the lease held and return within a few hundred
     * milliseconds; those the cap throttles are retried by Lambda for up to a minute, then dropped,
     * which is harmless because the running drainer already sees the work. The cap keeps a burst of
     * wake-ups from starving the account's concurrency.
     */
    public static int drainerConcurrency(int models) {
        return 3 * models + 2;
    }

    private void putModelsConfiguration(ModelsConfiguration models) {
        if (models.fitsInline()) {
            values.put(MODELS_CONFIG, models.compactJson());
            return;
        }
        modelsParameter = StringParameter.Builder.create(this, "ModelsParameter")
                .parameterName("/" + props.names().prefix() + "/models")
                .description("The models file the functions read: " + models.modelKeys())
                .stringValue(models.compactJson())
                .tier(models.needsAdvancedParameter() ? ParameterTier.ADVANCED : ParameterTier.STANDARD)
                .build();
        values.put(MODELS_PARAMETER, modelsParameter.getParameterName());
    }

    private ShaperFunction create(String id, FunctionSpec spec) {
        boolean production = props.stage().production();
        Map<String, String> environment = environmentFor(spec);
        environments.put(spec.purpose(), environment);
        return new ShaperFunction(this, id, props.names().functionName(spec.purpose()), spec, props.code(),
                environment,
                production ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS,
                production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);
    }

    private Map<String, String> environmentFor(FunctionSpec spec) {
        List<String> names = new ArrayList<>(COMMON_VARIABLES);
        names.addAll(spec.variables());
        Map<String, String> environment = new LinkedHashMap<>();
        for (String name : names) {
            if (name.equals(MODELS_CONFIG) && modelsParameter != null) {
                environment.put(MODELS_PARAMETER, values.get(MODELS_PARAMETER));
            } else {
                environment.put(name, values.get(name));
            }
        }
        return environment;
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

    /**
     * One block per function, each action traced to the service call that makes it. DynamoDB has no
     * IAM action for TransactWriteItems: a transaction needs the action of each item in it (PutItem,
     * UpdateItem, DeleteItem, ConditionCheckItem). Payload bodies up to 8 KiB (PayloadPolicy) are table items
     * (UpdateItem/GetItem); larger ones are objects under {@code payloads/}.
     */
    private void grantPermissions() {
        ResourceNames names = props.names();
        String stateMachine = names.stateMachineArn(this);
        String queueProcessorAlias = names.functionAliasArn(this, QUEUE_PROCESSOR.purpose());
        String bedrockProcessorAlias = names.functionAliasArn(this, BEDROCK_PROCESSOR.purpose());

        // SubmissionService: find the request id (GetItem), read the model status board (GetItem),
        // store the body (UpdateItem, or PutObject when large); then StartExecution.
        submit.allow(table(GET_ITEM, UPDATE_ITEM));
        submit.allow(payloadObjects("s3:PutObject"));
        submit.allow(key(true, DYNAMODB, S3));
        submit.allow(statement(List.of("states:StartExecution"), stateMachine));
        // On ExecutionAlreadyExists only: the running execution's input, to tell a re-post with
        // another body (409) from a repeat.
        submit.allow(statement(List.of("states:DescribeExecution"), names.executionsArn(this)));
        // CountTokensEstimator, for the models that ask for it (it also needs InvokeModel on them).
        List<String> counted = BedrockModelArns.of(this, props.models().models().stream()
                .filter(m -> m.backendSettings().tokenCounting() == BackendSettings.TokenCounting.COUNT_TOKENS)
                .toList());
        if (!counted.isEmpty()) {
            submit.allow(statement(List.of("bedrock:CountTokens", "bedrock:InvokeModel"),
                    counted.toArray(String[]::new)));
        }

        // AdmissionService: enqueue (transaction of two Puts), the winner of a repeat (GetItem),
        // replace a retried task's token (UpdateItem), look for a lease (GetItem), wake a drainer,
        // resume the workflow of a request that had already ended.
        budgetManager.allow(table(GET_ITEM, PUT_ITEM, UPDATE_ITEM));
        budgetManager.allow(key(true, DYNAMODB));
        budgetManager.allow(statement(TASK_RESPONSE, stateMachine));
        allowDeliveryHandoff(budgetManager);
        budgetManager.allow(statement(List.of("lambda:InvokeFunction"), queueProcessorAlias));

        // DrainService: lease (UpdateItem, GetItem), heads and depth (Query), fenced admit
        // (ConditionCheckItem + UpdateItem + DeleteItem), expire (UpdateItem, DeleteItem), outstanding
        // admissions (BatchGetItem), status board (PutItem, GetItem); resume an expired request's
        // workflow; dispatch to the Bedrock Processor; wake a successor.
        // The sweeper (in the drainer and the safety net) also Queries the sparse unsettled index.
        // The calls it makes itself (inline dispatch) are the Bedrock Processor's: the body and the
        // result (Get/PutObject when large), the usage (PutItem), the model's backend.
        queueProcessor.allow(statement(List.of(GET_ITEM, PUT_ITEM, UPDATE_ITEM, DELETE_ITEM, CONDITION_CHECK_ITEM,
                QUERY, BATCH_GET_ITEM), props.table().tableArn(), props.table().unsettledIndexArn()));
        queueProcessor.allow(payloadObjects("s3:GetObject", "s3:PutObject"));
        queueProcessor.allow(key(true, DYNAMODB, S3));
        queueProcessor.allow(statement(TASK_RESPONSE, stateMachine));
        allowDeliveryHandoff(queueProcessor);
        queueProcessor.allow(statement(List.of("lambda:InvokeFunction"), queueProcessorAlias, bedrockProcessorAlias));

        // InvocationService: find (GetItem), claim and end (UpdateItem), expire (UpdateItem,
        // DeleteItem), read the body and store the result (GetItem/UpdateItem or Get/PutObject),
        // settle usage (PutItem), requeue (transaction of UpdateItem + PutItem); the model's backend
        // (Converse and InvokeModel: bedrock:InvokeModel on its models; bedrock-mantle's APIs:
        // bedrock-mantle:CreateInference in the account's projects); resume the workflow; wake the
        // drainer after a requeue.
        bedrockProcessor.allow(table(GET_ITEM, PUT_ITEM, UPDATE_ITEM, DELETE_ITEM));
        bedrockProcessor.allow(payloadObjects("s3:GetObject", "s3:PutObject"));
        bedrockProcessor.allow(key(true, DYNAMODB, S3));
        bedrockProcessor.allow(statement(TASK_RESPONSE, stateMachine));
        allowDeliveryHandoff(bedrockProcessor);
        bedrockProcessor.allow(statement(List.of("lambda:InvokeFunction"), queueProcessorAlias));
        List<String> runtimeModels = BedrockModelArns.of(this, props.models().models());
        for (ShaperFunction caller : List.of(bedrockProcessor, queueProcessor)) {
            if (!runtimeModels.isEmpty()) {
                caller.allow(statement(List.of("bedrock:InvokeModel"), runtimeModels.toArray(String[]::new)));
            }
            if (BedrockModelArns.usesMantle(props.models().models())) {
                caller.allow(statement(List.of("bedrock-mantle:CreateInference"),
                        BedrockModelArns.mantleProjects(this)));
            }
        }

        // Finalizer: find (GetItem), expire (UpdateItem, DeleteItem) or fail (UpdateItem); store a
        // request whose enqueue never happened (the enqueue transaction's PutItems); hand off its delivery.
        finalizer.allow(table(GET_ITEM, PUT_ITEM, UPDATE_ITEM, DELETE_ITEM));
        finalizer.allow(key(true, DYNAMODB));
        allowDeliveryHandoff(finalizer);

        // StatusService: the request, its result and the status board, all by key.
        status.allow(table(GET_ITEM));
        status.allow(payloadObjects("s3:GetObject"));
        status.allow(key(false, DYNAMODB, S3));

        // Notifier: the request and its result (as Status), its delivery state, the webhook attempts
        // (receive, delete and the per-attempt visibility: the event source's grant), the signing key.
        notifier.allow(table(GET_ITEM, UPDATE_ITEM));
        notifier.allow(payloadObjects("s3:GetObject"));
        // writes: the delivery state on the status item (no S3 or Secrets Manager write is granted)
        notifier.allow(key(true, DYNAMODB, S3, SECRETS_MANAGER));
        notifier.allow(statement(List.of("secretsmanager:GetSecretValue"), props.webhookSecret().getSecretArn()));

        if (modelsParameter != null) {
            for (ShaperFunction fn : all()) {
                fn.allow(statement(List.of("ssm:GetParameter"), modelsParameter.getParameterArn()));
            }
        }
    }

    /**
     * The delivery hand-off of a function that writes terminal states ({@code Notifier}): queue the
     * webhook, publish the outcome event, and mark the request handed off (UpdateItem, granted with
     * the function's table actions).
     */
    private void allowDeliveryHandoff(ShaperFunction fn) {
        fn.allow(statement(List.of("sqs:SendMessage"), webhooks.getQueueArn()));
        fn.allow(statement(List.of("events:PutEvents"), props.eventBus().getEventBusArn()));
    }

    private PolicyStatement table(String... actions) {
        return statement(List.of(actions), props.table().tableArn());
    }

    private PolicyStatement payloadObjects(String... actions) {
        return statement(List.of(actions), props.payloads().objectsArn(S3PayloadObjects.PREFIX));
    }

    /**
     * The data key, only as the named services use it on the function's behalf (kms:ViaService):
     * reading needs Decrypt, writing also Encrypt and GenerateDataKey.
     */
    private PolicyStatement key(boolean writes, String... services) {
        List<String> actions = new ArrayList<>(List.of("kms:Decrypt", "kms:DescribeKey"));
        if (writes) {
            actions.addAll(List.of("kms:Encrypt", "kms:GenerateDataKey"));
        }
        List<String> viaServices = new ArrayList<>();
        for (String service : services) {
            viaServices.add(service + "." + Aws.REGION + "." + Aws.URL_SUFFIX);
        }
        return PolicyStatement.Builder.create()
                .actions(actions)
                .resources(List.of(props.key().getKeyArn()))
                .conditions(Map.of("StringEquals", Map.of("kms:ViaService", viaServices)))
                .build();
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new java.util.ArrayList<>(first);
        all.addAll(second);
        return List.copyOf(all);
    }

    private static PolicyStatement statement(List<String> actions, String... resources) {
        return PolicyStatement.Builder.create().actions(actions).resources(List.of(resources)).build();
    }

    public List<ShaperFunction> all() {
        return List.of(submit, budgetManager, queueProcessor, bedrockProcessor, finalizer, status, notifier);
    }

    /** The environment of the function with this purpose, e.g. {@code submit}. */
    public Map<String, String> environmentOf(String purpose) {
        Map<String, String> environment = environments.get(purpose);
        if (environment == null) {
            throw new IllegalArgumentException("no function named " + purpose);
        }
        return Map.copyOf(environment);
    }

    public Queue bedrockProcessorDeadLetters() {
        return bedrockProcessorDeadLetters;
    }

    /** Webhooks between their attempts; read by the Notifier. */
    public Queue webhooks() {
        return webhooks;
    }

    /** Webhooks whose every scheduled attempt failed, kept 14 days for a redrive. */
    public Queue webhookDeadLetters() {
        return webhookDeadLetters;
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
