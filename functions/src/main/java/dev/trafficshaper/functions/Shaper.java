package dev.trafficshaper.functions;

import dev.trafficshaper.aws.HttpKeepAlive;
import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import dev.trafficshaper.aws.bedrock.CountTokensEstimator;
import dev.trafficshaper.aws.dynamodb.DynamoDbStores;
import dev.trafficshaper.composition.Lazy;
import dev.trafficshaper.composition.ShaperPorts;
import dev.trafficshaper.composition.ShaperServices;
import dev.trafficshaper.composition.ShaperSettings;
import dev.trafficshaper.delivery.DeliverySchedule;
import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.delivery.StatusService;
import dev.trafficshaper.functions.aws.EventBridgeOutcomeEvents;
import dev.trafficshaper.functions.aws.LambdaAsync;
import dev.trafficshaper.functions.aws.PowertoolsMetrics;
import dev.trafficshaper.functions.aws.SqsWebhookAttempts;
import dev.trafficshaper.functions.aws.SqsWebhookQueue;
import dev.trafficshaper.functions.aws.StepFunctionsCallback;
import dev.trafficshaper.lifecycle.AdmitTimeout;
import dev.trafficshaper.lifecycle.AdmissionService;
import dev.trafficshaper.lifecycle.ConcurrentDispatch;
import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.lifecycle.DrainClock;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.DrainerWake;
import dev.trafficshaper.lifecycle.Finalizer;
import dev.trafficshaper.lifecycle.InvocationDispatch;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.SafetyNet;
import dev.trafficshaper.lifecycle.SubmissionService;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.lambda.powertools.parameters.ssm.SSMProvider;

/**
 * The functions' composition root: fills {@link ShaperPorts} with the AWS adapters and takes every
 * service from {@link ShaperServices}, the same builder the local runtime uses. Clients, ports and
 * services are made on first use, each once, reading the environment variables they need as they
 * are made; so a function builds only what its handler asks for, which keeps cold starts and
 * SnapStart snapshots small, and a missing variable fails with its name. One instance per handler instance, i.e. per Lambda execution
 * environment.
 *
 * <p>Clients honour {@code AWS_ENDPOINT_URL} (SDK standard), so the same code runs against an
 * emulator in the integration tests.
 */
public final class Shaper {

    private final ShaperEnvironment env;
    private final Lazy<SfnClient> sfn;
    private final Lazy<SqsWebhookQueue> webhookQueue;
    private final Lazy<SqsWebhookAttempts> webhookAttempts;
    private final Lazy<PowertoolsMetrics> metrics;
    private final Lazy<DynamoDbStores> persistence;
    private final ShaperServices services;
    private final Lazy<AdmitTimeout> admitTimeout;

    public Shaper(ShaperEnvironment env, Clients clients) {
        this(env, clients, null, null, DrainClock.system());
    }

    private Shaper(ShaperEnvironment env, Clients clients, InvocationDispatch dispatch, DrainerWake wake,
                   DrainClock clock) {
        this.env = env;
        Lazy<ModelCatalog> catalog = Lazy.of(() -> readCatalog(env));
        Lazy<LambdaClient> lambda = Lazy.of(clients::lambda);
        Lazy<LambdaAsync> lambdaAsync = Lazy.of(() -> new LambdaAsync(lambda.get(),
                env.require("BEDROCK_PROCESSOR_FUNCTION"), env.require("QUEUE_PROCESSOR_FUNCTION")));
        this.sfn = Lazy.of(clients::sfn);
        this.webhookQueue = Lazy.of(() -> new SqsWebhookQueue(clients.sqs(), env.require("DELIVERY_QUEUE_URL")));
        this.metrics = Lazy.of(() -> new PowertoolsMetrics(
                env.optional("POWERTOOLS_METRICS_NAMESPACE").orElse("TrafficShaper"),
                env.optional("POWERTOOLS_SERVICE_NAME").orElse("traffic-shaper")));
        this.persistence = Lazy.of(() -> DynamoDbStores.create(clients.dynamoDb(), clients.s3(),
                env.require("TABLE_NAME"), env.require("PAYLOAD_BUCKET"), catalog.get()));
        this.services = ShaperServices.create(ShaperPorts.builder()
                .catalog(catalog)
                .queue(() -> persistence.get().queue())
                .requests(() -> persistence.get().requests())
                .leases(() -> persistence.get().leases())
                .board(() -> persistence.get().board())
                .usage(() -> persistence.get().usage())
                .payloads(() -> persistence.get().payloads())
                .invoker(() -> BedrockInvokers.forRuntimeClient(clients.bedrock()))
                .estimator(() -> CountTokensEstimator.forRuntimeClient(clients::bedrock, CharacterTokenEstimator.defaults()))
                .dispatch(dispatch != null ? () -> dispatch : () -> concurrentDispatch(lambdaAsync.get()))
                .wake(wake != null ? () -> wake : lambdaAsync)
                .callback(() -> new StepFunctionsCallback(sfn.get(), persistence.get().requests(), clock::nowMillis))
                .events(() -> new EventBridgeOutcomeEvents(clients.events(), env.require("EVENT_BUS_NAME")))
                .webhookQueue(webhookQueue)
                .webhookSecret(() -> webhookSecret(clients.secrets()))
                .metrics(metrics)
                .clock(clock)
                .settings(ShaperSettings.builder().callbacks(callbackPolicy(env)).delivery(deliverySchedule(env))
                        .drain(drainSettings(env)).build())
                .build());
        this.admitTimeout = Lazy.of(() -> AdmitTimeout.forCatalog(catalog.get(), Duration.ofSeconds(
                env.optional("ADMIT_GRACE_SECONDS").map(Long::parseLong).orElse(AdmitTimeout.DEFAULT_GRACE_SECONDS))));
        this.webhookAttempts = Lazy.of(() -> new SqsWebhookAttempts(webhookQueue.get(), services.webhookSender(),
                System::currentTimeMillis));
    }

    /**
     * The same wiring with the asynchronous hand-offs replaced, for tests that run the Queue and
     * Bedrock Processors in process instead of through asynchronous Lambda invokes.
     */
    public static Shaper withAsync(ShaperEnvironment env, Clients clients, InvocationDispatch dispatch,
                                   DrainerWake wake) {
        return new Shaper(env, clients, dispatch, wake, DrainClock.system());
    }

    /** {@link #withAsync} on {@code clock}, for tests that move the services' time on (a lease running out, say). */
    public static Shaper withAsync(ShaperEnvironment env, Clients clients, InvocationDispatch dispatch,
                                   DrainerWake wake, DrainClock clock) {
        return new Shaper(env, clients, dispatch, wake, clock);
    }

    /**
     * Where {@code statusUrl}s point: {@code SHAPER_API_BASE_URL} (the API's public base, e.g. a
     * custom domain) when set, else nothing, and the {@code statusUrl} is the path alone. Never
     * taken from the request's {@code Host} header, which the caller controls.
     */
    public String statusUrl(String requestId) {
        String base = env.optional("SHAPER_API_BASE_URL").map(url -> url.endsWith("/") ? url.substring(0,
                url.length() - 1) : url).orElse("");
        return base + "/v1/requests/" + requestId;
    }

    /**
     * The Admit step's timeout for each request: its own deadline plus {@code ADMIT_GRACE_SECONDS}
     * (default {@value AdmitTimeout#DEFAULT_GRACE_SECONDS} s), at most the longest deadline plus that.
     */
    public AdmitTimeout admitTimeout() {
        return admitTimeout.get();
    }

    public static Shaper fromEnvironment() {
        return new Shaper(ShaperEnvironment.system(), Clients.defaults());
    }

    /** Builds the AWS clients; tests pass builders pointed at the emulator. */
    public interface Clients {
        DynamoDbClient dynamoDb();
        S3Client s3();
        SfnClient sfn();
        LambdaClient lambda();
        EventBridgeClient events();
        SecretsManagerClient secrets();
        BedrockRuntimeClient bedrock();
        SqsClient sqs();

        static Clients defaults() {
            HttpKeepAlive.ensure();
            return new Clients() {
                public DynamoDbClient dynamoDb() { return DynamoDbClient.builder().httpClient(http()).build(); }
                public S3Client s3() { return S3Client.builder().httpClient(http()).build(); }
                public SfnClient sfn() { return SfnClient.builder().httpClient(http()).build(); }
                public LambdaClient lambda() { return LambdaClient.builder().httpClient(http()).build(); }
                public EventBridgeClient events() { return EventBridgeClient.builder().httpClient(http()).build(); }
                public SecretsManagerClient secrets() {
                    return SecretsManagerClient.builder().httpClient(http()).build();
                }
                public SqsClient sqs() { return SqsClient.builder().httpClient(http()).build(); }
                public BedrockRuntimeClient bedrock() {
                    return BedrockInvokers.withoutRetries(BedrockRuntimeClient.builder()
                            .httpClient(UrlConnectionHttpClient.builder().socketTimeout(InvocationService.MAX_CALL)
                                    .build()), InvocationService.MAX_CALL).build();
                }
            };
        }

        private static software.amazon.awssdk.http.SdkHttpClient http() {
            return UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(30)).build();
        }
    }

    /** Every service, built on first use from this function's ports. */
    public ShaperServices services() {
        return services;
    }

    public SubmissionService submissions() {
        return services.submissions();
    }

    public AdmissionService admissions() {
        return services.admissions();
    }

    public DrainService drains() {
        return services.drains();
    }

    public SafetyNet safetyNet() {
        return services.safetyNet();
    }

    public InvocationService invocations() {
        return services.invocations();
    }

    public Finalizer finalizer() {
        return services.finalizer();
    }

    public StatusService status() {
        return services.status();
    }

    public Notifier notifier() {
        return services.notifier();
    }

    /** The delivery queue's batches: one webhook attempt per message. */
    public SqsWebhookAttempts webhookAttempts() {
        return webhookAttempts.get();
    }

    public ModelCatalog catalog() {
        return services.ports().catalog();
    }

    public RequestStore requests() {
        return services.ports().requests();
    }

    /** The DynamoDB and S3 adapters themselves, for tests that look at the table. */
    public DynamoDbStores persistence() {
        return persistence.get();
    }

    /** EMF metrics, for the counts a handler records itself (e.g. enqueued requests). */
    public PowertoolsMetrics metrics() {
        return metrics.get();
    }

    /** Starts executions (the Submit function). */
    public SfnClient sfn() {
        return sfn.get();
    }

    public String stateMachineArn() {
        return env.require("STATE_MACHINE_ARN");
    }

    public ShaperEnvironment environment() {
        return env;
    }

    /**
     * The webhook schedule; the stack sets the queue's {@code maxReceiveCount} to the same
     * {@code WEBHOOK_MAX_ATTEMPTS}, so the last failed attempt is the message's last receive.
     */
    private static DeliverySchedule deliverySchedule(ShaperEnvironment env) {
        DeliverySchedule defaults = DeliverySchedule.defaults();
        return new DeliverySchedule(
                env.optional("WEBHOOK_MAX_ATTEMPTS").map(Integer::parseInt).orElse(defaults.maxAttempts()),
                env.optional("WEBHOOK_FIRST_RETRY_SECONDS").map(s -> Long.parseLong(s) * 1000)
                        .orElse(defaults.firstRetryMillis()),
                env.optional("WEBHOOK_MAX_RETRY_SECONDS").map(s -> Long.parseLong(s) * 1000)
                        .orElse(defaults.maxRetryMillis()));
    }

    /**
     * How the Queue Processor sends admitted requests to Bedrock: {@code DISPATCH_MODE} {@code inline}
     * (the default: the drainer runs up to {@code INLINE_CALLS} calls itself, 256 unless set) or
     * {@code async} (each one an asynchronous invoke of the Bedrock Processor).
     */
    static DrainSettings drainSettings(ShaperEnvironment env) {
        DispatchMode mode = env.optional("DISPATCH_MODE").map(DispatchMode::parse).orElse(DispatchMode.INLINE);
        int calls = env.optional("INLINE_CALLS").map(Integer::parseInt).orElse(DrainSettings.DEFAULT_INLINE_CALLS);
        return DrainSettings.defaults().withDispatch(mode, calls);
    }

    private static CallbackUrlPolicy callbackPolicy(ShaperEnvironment env) {
        return env.optional("SHAPER_LOCAL_CALLBACKS").isPresent() ? CallbackUrlPolicy.local()
                : CallbackUrlPolicy.strict();
    }

    /** The webhook signing secret from Secrets Manager, read once per execution environment. */
    private byte[] webhookSecret(SecretsManagerClient secrets) {
        String arn = env.require("WEBHOOK_SECRET_ARN");
        return secrets.getSecretValue(b -> b.secretId(arn)).secretString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Dispatches 64 at a time so the drainer's thread never waits on an invoke (≈ 2,000/s at 30 ms
     * each); one that fails every attempt is logged and left to the workflow's timeout.
     */
    private static ConcurrentDispatch concurrentDispatch(LambdaAsync lambdaAsync) {
        return ConcurrentDispatch.of(lambdaAsync, 64, (model, requestId, failure) ->
                LoggerFactory.getLogger(ConcurrentDispatch.class).error("dispatch of {} for {} failed: {}",
                        requestId, model, failure.toString()));
    }

    private static ModelCatalog readCatalog(ShaperEnvironment env) {
        return env.optional("MODELS_CONFIG").map(ModelCatalog::parse)
                .orElseGet(() -> ModelCatalog.parse(SSMProvider.create().get(env.require("MODELS_PARAMETER"))));
    }
}
