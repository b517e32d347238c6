package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.functions.budget.BudgetManagerHandler;
import dev.trafficshaper.functions.drain.QueueProcessorHandler;
import dev.trafficshaper.functions.finalize.FinalizerHandler;
import dev.trafficshaper.functions.invoke.BedrockProcessorHandler;
import dev.trafficshaper.functions.notify.NotifierHandler;
import dev.trafficshaper.functions.status.StatusHandler;
import dev.trafficshaper.functions.submit.SubmitHandler;
import dev.trafficshaper.lifecycle.DrainerWake;
import dev.trafficshaper.lifecycle.InvocationDispatch;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.testing.AwsCallLedger;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.StateMachineHarness;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The deployed request lifecycle in one JVM, as RequestLifecycleIT runs it (moto's Step Functions
 * interpreter, the real handlers, the Bedrock simulator, a 127.0.0.1 webhook receiver, the delivery
 * queue polled in place of its event source mapping), with every function given its own composition
 * root and its own SDK clients, each counted in one {@link AwsCallLedger} under the function's name.
 * The two asynchronous Lambda invokes run as threads here and are recorded as the {@code Invoke}
 * calls they replace; the event source mapping's own SQS calls are not counted (they are not the
 * functions'), the invocations it makes are.
 */
final class CountedLifecycle implements AutoCloseable {

    static final String SUBMIT = "Submit";
    static final String BUDGET_MANAGER = "Budget Manager";
    static final String QUEUE_PROCESSOR = "Queue Processor";
    static final String BEDROCK_PROCESSOR = "Bedrock Processor";
    static final String NOTIFIER_DELIVER = "Notifier (Deliver)";
    static final String NOTIFIER_WEBHOOK = "Notifier (webhook)";
    static final String STATUS = "Status";
    static final String FINALIZER = "Finalizer";

    /** The size of an AWS task token (the SendTaskSuccess limit is 2,048; tokens seen are up to about 1 KB). */
    static final int AWS_TASK_TOKEN_CHARS = 1_000;
    private static final char TOKEN_PADDING = '#';
    private static final String TENANT = "arn:aws:iam::123456789012:user/alice";
    private static final byte[] SECRET = "webhook-secret-for-tests".getBytes(StandardCharsets.UTF_8);

    private final AwsEmulator aws = AwsEmulator.moto();
    private final AwsCallLedger ledger = AwsCallLedger.create(aws.configure(DynamoDbClient.builder()).build());
    private final ExecutorService async = Executors.newCachedThreadPool();
    private final Map<String, AtomicInteger> webhookCalls = new ConcurrentHashMap<>();
    private final BedrockSimulator bedrock;
    private final HttpServer webhooks;
    private final StateMachineHarness harness;
    private final Map<String, Shaper> functions = new HashMap<>();
    private final Thread deliveryPoller;
    private volatile boolean polling = true;

    /**
     * @param models             the models file
     * @param servedModel        the model the simulator serves
     * @param outputTokens       how long every answer is
     * @param bedrockLatencyMs   the simulator's mean latency
     */
    CountedLifecycle(String models, String servedModel, long outputTokens, int bedrockLatencyMs) throws IOException {
        String table = aws.createTable("cost");
        String bucket = aws.createBucket("cost");
        String bus = "cost-bus-" + System.nanoTime();
        String secretArn;
        String deliveries;
        SqsClient pollerSqs = aws.configure(SqsClient.builder()).build();
        try (EventBridgeClient events = aws.configure(EventBridgeClient.builder()).build();
             SecretsManagerClient secrets = aws.configure(SecretsManagerClient.builder()).build()) {
            events.createEventBus(b -> b.name(bus));
            secretArn = secrets.createSecret(b -> b.name("cost-webhook-" + System.nanoTime())
                    .secretString(new String(SECRET, StandardCharsets.UTF_8))).arn();
            deliveries = pollerSqs.createQueue(b -> b.queueName("cost-deliveries-" + System.nanoTime())).queueUrl();
        }
        ModelCatalog served = ModelCatalog.of(List.of(ModelCatalog.parse(models).require(servedModel)));
        bedrock = BedrockSimulator.builder().catalog(served).defaultOutputTokens(outputTokens)
                .latency(new LatencyModel(bedrockLatencyMs, 0.1, 0)).seed(7).build().start();
        webhooks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        webhooks.createContext("/hook", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String id = Json.MAPPER.readTree(body).path("requestId").asText();
            webhookCalls.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        webhooks.start();

        Map<String, String> env = new HashMap<>(Map.of("TABLE_NAME", table, "PAYLOAD_BUCKET", bucket,
                "EVENT_BUS_NAME", bus, "WEBHOOK_SECRET_ARN", secretArn, "MODELS_CONFIG", models,
                "SHAPER_LOCAL_CALLBACKS", "true", "QUEUE_PROCESSOR_FUNCTION", "queue-processor",
                "BEDROCK_PROCESSOR_FUNCTION", "bedrock-processor", "DELIVERY_QUEUE_URL", deliveries,
                "DISPATCH_MODE", "inline"));
        harness = StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", awsSizedToken(call(BUDGET_MANAGER, payload ->
                        new BudgetManagerHandler(function(BUDGET_MANAGER)).handleRequest(payload,
                                new FakeContext("budget", 30_000)))))
                .function("FinalizerFunctionArn", call(FINALIZER, payload ->
                        new FinalizerHandler(function(FINALIZER)).handleRequest(payload,
                                new FakeContext("finalizer", 30_000))))
                .build();
        env.put("STATE_MACHINE_ARN", harness.stateMachineArn());
        for (String name : List.of(SUBMIT, BUDGET_MANAGER, QUEUE_PROCESSOR, BEDROCK_PROCESSOR, NOTIFIER_DELIVER,
                NOTIFIER_WEBHOOK, STATUS, FINALIZER)) {
            functions.put(name, Shaper.withAsync(new ShaperEnvironment(env), clients(name), dispatch(name),
                    wake(name)));
        }
        Shaper notifier = function(NOTIFIER_WEBHOOK);
        // stopped by a flag, never interrupted: an aborted call would leave the single-threaded
        // emulator waiting on a half-sent request
        deliveryPoller = new Thread(() -> {
            while (polling) {
                try {
                    if (DeliveryQueuePoller.receiveAndHandle(pollerSqs, deliveries, notifier) > 0) {
                        ledger.invoked(NOTIFIER_WEBHOOK);
                    }
                } catch (RuntimeException e) {
                    System.err.println("delivery poll failed: " + e);
                }
            }
        }, "cost-delivery-poller");
        deliveryPoller.setDaemon(true);
        deliveryPoller.start();
    }

    AwsCallLedger ledger() {
        return ledger;
    }

    int webhookPort() {
        return webhooks.getAddress().getPort();
    }

    String submit(String body) {
        ledger.invoked(SUBMIT);
        APIGatewayProxyResponseEvent response = new SubmitHandler(function(SUBMIT)).handleRequest(
                ApiEvents.submit(body, TENANT), new FakeContext("submit", 10_000));
        assertThat(response.getStatusCode()).as(response.getBody()).isEqualTo(202);
        return ApiEvents.json(response.getBody()).get("requestId").asText();
    }

    APIGatewayProxyResponseEvent status(String requestId) {
        ledger.invoked(STATUS);
        return new StatusHandler(function(STATUS)).handleRequest(ApiEvents.status(requestId, TENANT),
                new FakeContext("status", 10_000));
    }

    StateMachineHarness.Result awaitExecution(String requestId) {
        String arn = harness.stateMachineArn().replace(":stateMachine:", ":execution:") + ":"
                + SubmitHandler.executionName(TENANT, requestId);
        SfnClient sfn = harness.sfn();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .alias("execution of " + requestId + " ended")
                .until(() -> sfn.describeExecution(b -> b.executionArn(arn)).status() != ExecutionStatus.RUNNING);
        return harness.execution(arn).awaitEnd(Duration.ofSeconds(5));
    }

    /** The webhook arrives once, from the delivery queue, shortly after the execution ends. */
    void awaitWebhook(String id) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).alias("webhook of " + id)
                .until(() -> webhookCalls.get(id) != null);
        assertThat(webhookCalls.get(id)).as("webhook of " + id).hasValue(1);
    }

    /** Waits until no drainer holds the model's lease: its calls for the requests so far are all made. */
    void awaitDrainerIdle(String model) {
        Shaper drainer = function(QUEUE_PROCESSOR);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).alias("the drainer stopped")
                .until(() -> drainer.persistence().leases().current(model, System.currentTimeMillis()).isEmpty());
    }

    long bedrockCalls() {
        return bedrock.calls();
    }

    @Override
    public void close() throws InterruptedException {
        polling = false;
        deliveryPoller.join(30_000);
        async.shutdownNow();
        webhooks.stop(0);
        bedrock.stop();
    }

    private Shaper function(String name) {
        return functions.get(name);
    }

    private InvocationDispatch dispatch(String caller) {
        return (model, requestId) -> {
            ledger.record(caller, "Lambda", "Invoke");
            async.execute(() -> {
                ledger.invoked(BEDROCK_PROCESSOR);
                new BedrockProcessorHandler(function(BEDROCK_PROCESSOR)).handleRequest(
                        Map.of("model", model, "requestId", requestId), new FakeContext("bedrock-processor", 60_000));
            });
        };
    }

    private DrainerWake wake(String caller) {
        return model -> {
            ledger.record(caller, "Lambda", "Invoke");
            async.execute(() -> {
                ledger.invoked(QUEUE_PROCESSOR);
                new QueueProcessorHandler(function(QUEUE_PROCESSOR)).handleRequest(Map.of("model", model),
                        new FakeContext("queue-processor", 900_000));
            });
        };
    }

    private Function<JsonNode, JsonNode> call(String function,
                                              Function<Map<String, Object>, Map<String, Object>> handler) {
        return payload -> {
            ledger.invoked(function);
            return Json.MAPPER.valueToTree(handler.apply(
                    Json.MAPPER.convertValue(payload, new TypeReference<Map<String, Object>>() { })));
        };
    }

    private <B extends AwsClientBuilder<B, ?> & AwsSyncClientBuilder<B, ?>> B counted(B builder, String caller) {
        return aws.configure(builder).overrideConfiguration(o -> o.addExecutionInterceptor(ledger.interceptor(caller))
                .addExecutionInterceptor(new MotoTaskTokens()));
    }

    /**
     * The Admit task's input with the task token padded to {@value #AWS_TASK_TOKEN_CHARS} characters:
     * moto's tokens are 36, AWS's up to about 1 KB, and the token is stored (in its own item) and
     * read back at each signal, so that item's size, and the units counted, are AWS's.
     */
    private static Function<JsonNode, JsonNode> awsSizedToken(Function<JsonNode, JsonNode> handler) {
        return payload -> {
            com.fasterxml.jackson.databind.node.ObjectNode padded = payload.deepCopy();
            String token = payload.path("taskToken").asText();
            padded.put("taskToken", token + TOKEN_PADDING + "A".repeat(Math.max(0,
                    AWS_TASK_TOKEN_CHARS - token.length() - 1)));
            return handler.apply(padded);
        };
    }

    /** Gives moto back its own token on every SendTask* call. */
    private static final class MotoTaskTokens implements software.amazon.awssdk.core.interceptor.ExecutionInterceptor {
        @Override
        public software.amazon.awssdk.core.SdkRequest modifyRequest(
                software.amazon.awssdk.core.interceptor.Context.ModifyRequest context,
                software.amazon.awssdk.core.interceptor.ExecutionAttributes attributes) {
            if (context.request() instanceof software.amazon.awssdk.services.sfn.model.SendTaskSuccessRequest r) {
                return r.toBuilder().taskToken(unpadded(r.taskToken())).build();
            }
            if (context.request() instanceof software.amazon.awssdk.services.sfn.model.SendTaskFailureRequest r) {
                return r.toBuilder().taskToken(unpadded(r.taskToken())).build();
            }
            if (context.request() instanceof software.amazon.awssdk.services.sfn.model.SendTaskHeartbeatRequest r) {
                return r.toBuilder().taskToken(unpadded(r.taskToken())).build();
            }
            return context.request();
        }

        private static String unpadded(String token) {
            int padding = token.indexOf(TOKEN_PADDING);
            return padding < 0 ? token : token.substring(0, padding);
        }
    }

    private Shaper.Clients clients(String caller) {
        return new Shaper.Clients() {
            public DynamoDbClient dynamoDb() { return counted(DynamoDbClient.builder(), caller).build(); }
            public S3Client s3() { return counted(S3Client.builder(), caller).forcePathStyle(true).build(); }
            public SfnClient sfn() { return counted(SfnClient.builder(), caller).build(); }
            public LambdaClient lambda() { return counted(LambdaClient.builder(), caller).build(); }
            public EventBridgeClient events() { return counted(EventBridgeClient.builder(), caller).build(); }
            public SecretsManagerClient secrets() { return counted(SecretsManagerClient.builder(), caller).build(); }
            public SqsClient sqs() { return counted(SqsClient.builder(), caller).build(); }
            public BedrockRuntimeClient bedrock() { return EmulatorClients.bedrockAt(bedrock.endpoint()); }
        };
    }
}
