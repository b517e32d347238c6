package dev.trafficshaper.functions;

import dev.trafficshaper.aws.bedrock.ConverseModelInvoker;
import dev.trafficshaper.aws.dynamodb.DynamoDbDrainerLeases;
import dev.trafficshaper.aws.dynamodb.DynamoDbModelStatusBoard;
import dev.trafficshaper.aws.dynamodb.DynamoDbPayloadStore;
import dev.trafficshaper.aws.dynamodb.DynamoDbRequestQueue;
import dev.trafficshaper.aws.dynamodb.DynamoDbRequestStore;
import dev.trafficshaper.aws.dynamodb.DynamoDbUsageLedger;
import dev.trafficshaper.aws.s3.S3PayloadObjects;
import dev.trafficshaper.delivery.HttpWebhookTransport;
import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.delivery.StatusService;
import dev.trafficshaper.functions.aws.EventBridgeOutcomeEvents;
import dev.trafficshaper.functions.aws.LambdaAsync;
import dev.trafficshaper.functions.aws.PowertoolsMetrics;
import dev.trafficshaper.functions.aws.StepFunctionsCallback;
import dev.trafficshaper.lifecycle.AdmissionService;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.DrainerWake;
import dev.trafficshaper.lifecycle.ConcurrentDispatch;
import dev.trafficshaper.lifecycle.InvocationDispatch;
import dev.trafficshaper.lifecycle.Finalizer;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.StoredPacerHandoff;
import dev.trafficshaper.lifecycle.SubmissionService;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import dev.trafficshaper.submission.SubmissionParser;
import dev.trafficshaper.usage.UsageSharding;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.lambda.powertools.parameters.ssm.SSMProvider;

/**
 * The composition root of every function: reads the environment once, builds each AWS client and
 * service on first use (a function builds only what it needs, which keeps cold starts and
 * SnapStart snapshots small), and hands the services to the thin handlers. One instance per
 * handler instance, i.e. per Lambda execution environment.
 *
 * <p>Clients honour {@code AWS_ENDPOINT_URL} (SDK standard), so the same code runs against an
 * emulator in the integration tests.
 */
public final class Shaper {

    private final ShaperEnvironment env;
    private final Supplier<ModelCatalog> catalog;
    private final Supplier<DynamoDbClient> dynamoDb;
    private final Supplier<S3Client> s3;
    private final Supplier<SfnClient> sfn;
    private final Supplier<LambdaClient> lambda;
    private final Supplier<EventBridgeClient> events;
    private final Supplier<SecretsManagerClient> secrets;
    private final Supplier<BedrockRuntimeClient> bedrock;
    private final Supplier<PowertoolsMetrics> metrics;
    private final Supplier<Persistence> persistence;
    private final Supplier<InvocationDispatch> dispatch;
    private final Supplier<DrainerWake> wake;

    /** The adapters over the single table and the payload bucket. */
    public record Persistence(DynamoDbRequestStore requests, DynamoDbRequestQueue queue, DynamoDbDrainerLeases leases,
                              DynamoDbPayloadStore payloads, DynamoDbUsageLedger usage,
                              DynamoDbModelStatusBoard board) {
    }

    public Shaper(ShaperEnvironment env, Clients clients) {
        this(env, clients, null, null);
    }

    private Shaper(ShaperEnvironment env, Clients clients, InvocationDispatch dispatch, DrainerWake wake) {
        this.env = env;
        this.dispatch = dispatch != null ? () -> dispatch : memoize(this::concurrentDispatch);
        this.wake = wake != null ? () -> wake : memoize(this::lambdaAsync);
        this.catalog = memoize(() -> readCatalog(env));
        this.dynamoDb = memoize(clients::dynamoDb);
        this.s3 = memoize(clients::s3);
        this.sfn = memoize(clients::sfn);
        this.lambda = memoize(clients::lambda);
        this.events = memoize(clients::events);
        this.secrets = memoize(clients::secrets);
        this.bedrock = memoize(clients::bedrock);
        this.metrics = memoize(() -> new PowertoolsMetrics(
                env.optional("POWERTOOLS_METRICS_NAMESPACE").orElse("TrafficShaper"),
                env.optional("POWERTOOLS_SERVICE_NAME").orElse("traffic-shaper")));
        this.persistence = memoize(() -> {
            String table = env.require("TABLE_NAME");
            DynamoDbClient db = dynamoDb.get();
            PayloadPolicy policy = PayloadPolicy.defaults();
            return new Persistence(DynamoDbRequestStore.create(db, table),
                    DynamoDbRequestQueue.create(db, table, catalog.get(), ShardPicker.roundRobin()),
                    DynamoDbDrainerLeases.create(db, table),
                    DynamoDbPayloadStore.create(db, table,
                            S3PayloadObjects.create(s3.get(), env.require("PAYLOAD_BUCKET")), policy),
                    DynamoDbUsageLedger.create(db, table, UsageSharding.defaults()),
                    DynamoDbModelStatusBoard.create(db, table));
        });
    }

    /**
     * The same wiring with the asynchronous hand-offs replaced, for tests that run the Queue and
     * Bedrock Processors in process instead of through asynchronous Lambda invokes.
     */
    public static Shaper withAsync(ShaperEnvironment env, Clients clients, InvocationDispatch dispatch,
                                   DrainerWake wake) {
        return new Shaper(env, clients, dispatch, wake);
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

        static Clients defaults() {
            return new Clients() {
                public DynamoDbClient dynamoDb() { return DynamoDbClient.builder().httpClient(http()).build(); }
                public S3Client s3() { return S3Client.builder().httpClient(http()).build(); }
                public SfnClient sfn() { return SfnClient.builder().httpClient(http()).build(); }
                public LambdaClient lambda() { return LambdaClient.builder().httpClient(http()).build(); }
                public EventBridgeClient events() { return EventBridgeClient.builder().httpClient(http()).build(); }
                public SecretsManagerClient secrets() {
                    return SecretsManagerClient.builder().httpClient(http()).build();
                }
                public BedrockRuntimeClient bedrock() {
                    return ConverseModelInvoker.withoutRetries(BedrockRuntimeClient.builder()
                            .httpClient(UrlConnectionHttpClient.builder().socketTimeout(InvocationService.MAX_CALL)
                                    .build()), InvocationService.MAX_CALL).build();
                }
            };
        }

        private static software.amazon.awssdk.http.SdkHttpClient http() {
            return UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(30)).build();
        }
    }

    public ModelCatalog catalog() {
        return catalog.get();
    }

    public Persistence persistence() {
        return persistence.get();
    }

    public PowertoolsMetrics metrics() {
        return metrics.get();
    }

    public SfnClient sfn() {
        return sfn.get();
    }

    public String stateMachineArn() {
        return env.require("STATE_MACHINE_ARN");
    }

    public CallbackUrlPolicy callbackPolicy() {
        return env.optional("SHAPER_LOCAL_CALLBACKS").isPresent() ? CallbackUrlPolicy.local()
                : CallbackUrlPolicy.strict();
    }

    public SubmissionService submissions() {
        Persistence p = persistence();
        return SubmissionService.create(catalog(),
                SubmissionParser.create(catalog(), callbackPolicy(), PayloadPolicy.DEFAULT_MAX_BYTES),
                CharacterTokenEstimator.defaults(), p.payloads(), p.requests(), p.board(),
                () -> UUID.randomUUID().toString());
    }

    public AdmissionService admissions() {
        Persistence p = persistence();
        return AdmissionService.create(p.queue(), p.requests(), p.leases(), wake.get(), callback());
    }

    public DrainService drains() {
        Persistence p = persistence();
        return DrainService.builder().catalog(catalog()).queue(p.queue()).requests(p.requests()).leases(p.leases())
                .board(p.board()).dispatch(dispatch.get()).wake(wake.get()).callback(callback())
                .handoff(new StoredPacerHandoff()).metrics(metrics()).build();
    }

    public InvocationService invocations() {
        Persistence p = persistence();
        return InvocationService.create(catalog(), p.requests(), p.queue(), p.payloads(), p.usage(),
                ConverseModelInvoker.create(bedrock.get()), callback(), wake.get(), metrics(),
                System::currentTimeMillis, InvocationService.DEFAULT_MAX_REQUEUES);
    }

    public Finalizer finalizer() {
        Persistence p = persistence();
        return Finalizer.create(p.requests(), p.queue(), metrics());
    }

    public StatusService status() {
        Persistence p = persistence();
        return StatusService.create(catalog(), p.requests(), p.payloads(), p.board());
    }

    public Notifier notifier() {
        byte[] webhookSecret = webhookSecret();
        return Notifier.create(persistence().requests(), status(), new HttpWebhookTransport(Duration.ofSeconds(10)),
                new EventBridgeOutcomeEvents(events.get(), env.require("EVENT_BUS_NAME")), callbackPolicy(),
                webhookSecret, 3, Thread::sleep, System::currentTimeMillis);
    }

    /** Starts a Queue Processor for the model (asynchronous invoke). */
    public void wake(String modelKey) {
        wake.get().wake(modelKey);
    }

    public SecretsManagerClient secrets() {
        return secrets.get();
    }

    public BedrockRuntimeClient bedrock() {
        return bedrock.get();
    }

    public RequestStore requests() {
        return persistence().requests();
    }

    /** The webhook signing secret from Secrets Manager, read once per execution environment. */
    public byte[] webhookSecret() {
        String arn = env.require("WEBHOOK_SECRET_ARN");
        return secrets.get().getSecretValue(b -> b.secretId(arn)).secretString().getBytes(StandardCharsets.UTF_8);
    }

    public ShaperEnvironment environment() {
        return env;
    }

    private StepFunctionsCallback callback() {
        return new StepFunctionsCallback(sfn.get());
    }

    private LambdaAsync lambdaAsync() {
        return new LambdaAsync(lambda.get(), env.require("BEDROCK_PROCESSOR_FUNCTION"),
                env.require("QUEUE_PROCESSOR_FUNCTION"));
    }

    /**
     * Dispatches 64 at a time so the drainer's thread never waits on an invoke (≈ 2,000/s at 30 ms
     * each); one that fails every attempt is logged and left to the workflow's timeout.
     */
    private ConcurrentDispatch concurrentDispatch() {
        return ConcurrentDispatch.of(lambdaAsync(), 64, (model, requestId, failure) ->
                LoggerFactory.getLogger(ConcurrentDispatch.class).error("dispatch of {} for {} failed: {}",
                        requestId, model, failure.toString()));
    }

    private static ModelCatalog readCatalog(ShaperEnvironment env) {
        return env.optional("MODELS_CONFIG").map(ModelCatalog::parse)
                .orElseGet(() -> ModelCatalog.parse(SSMProvider.create().get(env.require("MODELS_PARAMETER"))));
    }

    private static <T> Supplier<T> memoize(Supplier<T> factory) {
        return new Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) {
                    value = factory.get();
                }
                return value;
            }
        };
    }
}
