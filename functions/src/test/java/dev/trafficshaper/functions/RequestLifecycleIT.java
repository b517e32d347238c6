package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.delivery.WebhookSignature;
import dev.trafficshaper.functions.budget.BudgetManagerHandler;
import dev.trafficshaper.functions.drain.QueueProcessorHandler;
import dev.trafficshaper.functions.finalize.FinalizerHandler;
import dev.trafficshaper.functions.invoke.BedrockProcessorHandler;
import dev.trafficshaper.functions.status.StatusHandler;
import dev.trafficshaper.functions.submit.SubmitHandler;
import dev.trafficshaper.lifecycle.DrainerWake;
import dev.trafficshaper.lifecycle.InvocationDispatch;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.StateMachineHarness;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * The real handlers through the real state machine: executions run in moto's Step Functions
 * interpreter, the handlers' AWS calls go to moto (DynamoDB, S3, Step Functions, EventBridge,
 * Secrets Manager), Bedrock is the simulator reached through the real SDK with retries off.
 * Only the two asynchronous Lambda invokes (drainer wake-up, dispatch to the Bedrock Processor)
 * are replaced by threads in this JVM. The deployments dispatch asynchronously unless a test asks
 * for calls in the drainer ({@code DISPATCH_MODE=inline}).
 */
class RequestLifecycleIT {

    private static final String TENANT = "arn:aws:iam::123456789012:user/alice";
    private static final String MODELS = """
            {"models": {
              "nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 2, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600},
              "nova-lite-hanging": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 1, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600},
              "nova-lite-undrained": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 1, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600},
              "nova-lite-late-delivery": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 1, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600},
              "nova-lite-swept": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 1, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600},
              "missing-model": {"modelId": "amazon.not-in-this-region-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 1, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600}
            }}""";
    /** Drained by no test: only the scheduled safety net touches it. */
    private static final String SWEPT = "nova-lite-swept";
    private static final byte[] SECRET = "webhook-secret-for-tests".getBytes(StandardCharsets.UTF_8);

    private static AwsEmulator aws;
    private static BedrockSimulator bedrock;
    private static HttpServer webhooks;
    private static final Map<String, AtomicInteger> webhookCalls = new ConcurrentHashMap<>();
    private static final List<String> badSignatures = new ArrayList<>();
    private static final ExecutorService async = Executors.newCachedThreadPool();
    private static Map<String, String> baseEnv;
    private static SqsClient sqs;
    private static volatile boolean polling = true;
    private static Thread deliveryPoller;

    @BeforeAll
    static void startDependencies() throws IOException {
        aws = AwsEmulator.moto();
        String table = aws.createTable("lifecycle");
        String bucket = aws.createBucket("lifecycle");
        String bus = "shaper-bus-" + System.nanoTime();
        try (EventBridgeClient events = aws.configure(EventBridgeClient.builder()).build();
             SecretsManagerClient secrets = aws.configure(SecretsManagerClient.builder()).build()) {
            events.createEventBus(b -> b.name(bus));
            String secretArn = secrets.createSecret(b -> b.name("webhook-" + System.nanoTime())
                    .secretString(new String(SECRET, StandardCharsets.UTF_8))).arn();
            sqs = aws.configure(SqsClient.builder()).build();
            String deliveries = sqs.createQueue(b -> b.queueName("deliveries-" + System.nanoTime())).queueUrl();
            baseEnv = new HashMap<>(Map.of("TABLE_NAME", table, "PAYLOAD_BUCKET", bucket, "EVENT_BUS_NAME", bus,
                    "WEBHOOK_SECRET_ARN", secretArn, "MODELS_CONFIG", MODELS, "SHAPER_LOCAL_CALLBACKS", "true",
                    "QUEUE_PROCESSOR_FUNCTION", "queue-processor", "BEDROCK_PROCESSOR_FUNCTION", "bedrock-processor",
                    "DELIVERY_QUEUE_URL", deliveries));
            baseEnv.put("DISPATCH_MODE", "async");
            // the delivery queue's event source mapping: the real Notifier, one attempt per message
            Shaper notifier = new Shaper(new ShaperEnvironment(baseEnv), EmulatorClients.withoutBedrock(aws));
            // stopped by a flag, never interrupted: an aborted call would leave the single-threaded
            // emulator waiting on a half-sent request
            deliveryPoller = new Thread(() -> {
                while (polling) {
                    try {
                        DeliveryQueuePoller.receiveAndHandle(sqs, deliveries, notifier);
                    } catch (RuntimeException e) {
                        System.err.println("delivery poll failed: " + e);
                    }
                }
            }, "delivery-poller");
            deliveryPoller.setDaemon(true);
            deliveryPoller.start();
        }
        ModelCatalog servedByBedrock = ModelCatalog.of(List.of(ModelCatalog.parse(MODELS).require("nova-lite")));
        bedrock = BedrockSimulator.builder().catalog(servedByBedrock)
                .latency(new LatencyModel(20, 0.1, 0)).seed(7).build().start();
        webhooks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        webhooks.createContext("/hook", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String timestamp = exchange.getRequestHeaders().getFirst(WebhookSignature.TIMESTAMP_HEADER);
            String signature = exchange.getRequestHeaders().getFirst(WebhookSignature.SIGNATURE_HEADER);
            String id = Json.MAPPER.readTree(body).path("requestId").asText();
            if (!WebhookSignature.sign(SECRET, Long.parseLong(timestamp), body).equals(signature)) {
                synchronized (badSignatures) {
                    badSignatures.add(id);
                }
            }
            webhookCalls.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        webhooks.start();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        polling = false;
        if (deliveryPoller != null) {
            deliveryPoller.join(30_000);
        }
        async.shutdownNow();
        if (webhooks != null) {
            webhooks.stop(0);
        }
        if (bedrock != null) {
            bedrock.stop();
        }
    }

    /**
     * One deployment: a state machine, the handlers over one composition root. The Admit step
     * waits for each request's own deadline plus {@code admitGraceSeconds}.
     */
    private static final class Deployment {
        final StateMachineHarness harness;
        final Shaper shaper;
        final AtomicInteger processorRuns = new AtomicInteger();
        /** The Budget Manager waits for it: a test holds the enqueue back with it. */
        final CountDownLatch admitGate;

        Deployment(int admitGraceSeconds, boolean wakeDrainer, int deliveriesPerDispatch) {
            this(admitGraceSeconds, wakeDrainer, deliveriesPerDispatch, bedrock);
        }

        Deployment(int admitGraceSeconds, boolean wakeDrainer, int deliveriesPerDispatch, BedrockSimulator simulator) {
            this(admitGraceSeconds, wakeDrainer, deliveriesPerDispatch, simulator, Map.of(), new CountDownLatch(0));
        }

        Deployment(int admitGraceSeconds, boolean wakeDrainer, int deliveriesPerDispatch, BedrockSimulator simulator,
                   Map<String, String> envOverrides) {
            this(admitGraceSeconds, wakeDrainer, deliveriesPerDispatch, simulator, envOverrides, new CountDownLatch(0));
        }

        Deployment(int admitGraceSeconds, boolean wakeDrainer, int deliveriesPerDispatch, BedrockSimulator simulator,
                   Map<String, String> envOverrides, CountDownLatch admitGate) {
            this(admitGraceSeconds, wakeDrainer, deliveriesPerDispatch, simulator, envOverrides, admitGate, 60_000);
        }

        /** @param queueProcessorMillis the Queue Processor's time limit (Lambda's is 15 minutes) */
        Deployment(int admitGraceSeconds, boolean wakeDrainer, int deliveriesPerDispatch, BedrockSimulator simulator,
                   Map<String, String> envOverrides, CountDownLatch admitGate, int queueProcessorMillis) {
            Shaper[] self = new Shaper[1];
            InvocationDispatch dispatch = (model, requestId) -> {
                for (int i = 0; i < deliveriesPerDispatch; i++) {
                    async.execute(() -> {
                        processorRuns.incrementAndGet();
                        new BedrockProcessorHandler(self[0]).handleRequest(
                                Map.of("model", model, "requestId", requestId), new FakeContext("bedrock-processor", 60_000));
                    });
                }
            };
            DrainerWake wake = model -> {
                if (wakeDrainer) {
                    async.execute(() -> new QueueProcessorHandler(self[0]).handleRequest(Map.of("model", model),
                            new FakeContext("queue-processor", queueProcessorMillis)));
                }
            };
            this.admitGate = admitGate;
            Map<String, String> env = new HashMap<>(baseEnv);
            env.put("ADMIT_GRACE_SECONDS", Integer.toString(admitGraceSeconds));
            env.putAll(envOverrides);
            StateMachineHarness.Builder builder = StateMachineHarness.builder()
                    .function("BudgetManagerFunctionArn", call(payload -> {
                        awaitGate(admitGate);
                        return new BudgetManagerHandler(self[0]).handleRequest(payload, new FakeContext("budget", 30_000));
                    }))
                    .function("FinalizerFunctionArn", call(payload ->
                            new FinalizerHandler(self[0]).handleRequest(payload, new FakeContext("finalizer", 30_000))));
            harness = builder.build();
            env.put("STATE_MACHINE_ARN", harness.stateMachineArn());
            shaper = Shaper.withAsync(new ShaperEnvironment(env), EmulatorClients.withBedrock(aws, simulator.endpoint()),
                    dispatch, wake);
            self[0] = shaper;
        }

        String submit(String body) {
            APIGatewayProxyResponseEvent response = post(body);
            assertThat(response.getStatusCode()).as(response.getBody()).isEqualTo(202);
            return ApiEvents.json(response.getBody()).get("requestId").asText();
        }

        APIGatewayProxyResponseEvent post(String body) {
            return new SubmitHandler(shaper).handleRequest(ApiEvents.submit(body, TENANT),
                    new FakeContext("submit", 10_000));
        }

        APIGatewayProxyResponseEvent status(String requestId) {
            return new StatusHandler(shaper).handleRequest(ApiEvents.status(requestId, TENANT),
                    new FakeContext("status", 10_000));
        }

        StateMachineHarness.Result awaitExecution(String requestId) {
            return awaitExecution(requestId, Duration.ofSeconds(60));
        }

        StateMachineHarness.Result awaitExecution(String requestId, Duration atMost) {
            String arn = harness.stateMachineArn().replace(":stateMachine:", ":execution:") + ":"
                    + SubmitHandler.executionName(TENANT, requestId);
            SfnClient sfn = harness.sfn();
            await().atMost(atMost).pollInterval(Duration.ofMillis(100))
                    .alias("execution of " + requestId + " ended")
                    .until(() -> sfn.describeExecution(b -> b.executionArn(arn)).status() != ExecutionStatus.RUNNING);
            return harness.execution(arn).awaitEnd(Duration.ofSeconds(5));
        }
    }

    @Test
    void requestsAreQueuedPacedInvokedOnceAndDeliveredOnce() {
        Deployment deployment = new Deployment(300, true, 1);
        long callsBefore = bedrock.calls();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(deployment.submit(body("nova-lite", "happy-" + System.nanoTime() + "-" + i, 60)));
        }

        for (String id : ids) {
            StateMachineHarness.Result result = deployment.awaitExecution(id);
            assertThat(result.status()).as(result.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(result.statesEntered()).containsExactly("Admit");
            assertThat(transitions(result)).as("state transitions of a request that succeeds").isEqualTo(1);
            System.out.println("state transitions of a request that succeeds: " + transitions(result));
            APIGatewayProxyResponseEvent status = deployment.status(id);
            assertThat(status.getStatusCode()).isEqualTo(200);
            JsonNode view = ApiEvents.json(status.getBody());
            assertThat(view.get("status").asText()).isEqualTo("SUCCEEDED");
            assertThat(view.path("response").path("output").path("message").isObject()).isTrue();
            assertThat(view.path("usage").path("outputTokens").asLong()).isPositive();
            awaitWebhook(id);
        }
        assertThat(bedrock.calls() - callsBefore).isEqualTo(4);
        assertThat(badSignatures).isEmpty();
    }

    @Test
    void withCallsInTheDrainerEachRequestIsCalledOnceWithoutAProcessorInvocationAndDeliveredOnce() {
        Deployment deployment = new Deployment(300, true, 1, bedrock, Map.of("DISPATCH_MODE", "inline"),
                new CountDownLatch(0), 900_000);
        long callsBefore = bedrock.calls();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(deployment.submit(body("nova-lite", "inline-" + System.nanoTime() + "-" + i, 60)));
        }
        String failing = deployment.submit(body("missing-model", "inline-error-" + System.nanoTime(), 60));

        for (String id : ids) {
            StateMachineHarness.Result result = deployment.awaitExecution(id);
            assertThat(result.status()).as(result.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(result.statesEntered()).containsExactly("Admit");
            JsonNode view = ApiEvents.json(deployment.status(id).getBody());
            assertThat(view.get("status").asText()).isEqualTo("SUCCEEDED");
            assertThat(view.path("usage").path("outputTokens").asLong()).isPositive();
            awaitWebhook(id);
        }
        StateMachineHarness.Result failed = deployment.awaitExecution(failing);
        assertThat(failed.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(ApiEvents.json(deployment.status(failing).getBody()).get("reason").asText())
                .isEqualTo("DEPENDENCY_ERROR");
        awaitWebhook(failing);
        assertThat(bedrock.calls() - callsBefore).as("one Bedrock call per request").isEqualTo(6);
        assertThat(deployment.processorRuns).as("no Bedrock Processor invocation: the drainer made the calls")
                .hasValue(0);
        assertThat(badSignatures).isEmpty();
    }

    @Test
    void aBedrockErrorEndsInOneHonestFailureAndTheExecutionFails() {
        Deployment deployment = new Deployment(300, true, 1);
        String id = deployment.submit(body("missing-model", "error-" + System.nanoTime(), 60));

        StateMachineHarness.Result result = deployment.awaitExecution(id);

        assertThat(result.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.error()).isEqualTo("RequestFailed");
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Failed");
        System.out.println("state transitions of a request that fails: " + transitions(result));
        JsonNode view = ApiEvents.json(deployment.status(id).getBody());
        assertThat(deployment.status(id).getStatusCode()).isEqualTo(503);
        assertThat(view.get("status").asText()).isEqualTo("FAILED");
        assertThat(view.get("reason").asText()).isEqualTo("DEPENDENCY_ERROR");
        assertThat(view.get("detail").asText()).contains("404");
        awaitWebhook(id);
    }

    @Test
    void aRequestNobodyAnswersExpiresAtItsOwnDeadlinePlusTheGraceNotAtTheStackWideTimeout() {
        // deadline 5 s, grace 3 s: the Admit step waits 8 s; the longest deadline (600 s) would wait 603 s
        // a model of its own: a drainer an earlier test woke for nova-lite, still running, would answer it
        Deployment deployment = new Deployment(3, false, 1);
        long submitted = System.nanoTime();
        String id = deployment.submit(body("nova-lite-undrained", "expiry-" + System.nanoTime(), 5));

        StateMachineHarness.Result result = deployment.awaitExecution(id, Duration.ofSeconds(40));
        Duration took = Duration.ofNanos(System.nanoTime() - submitted);

        System.out.println("a 5 s request nobody answers ended after " + took.toMillis() + " ms");
        assertThat(took).isBetween(Duration.ofSeconds(7), Duration.ofSeconds(25));
        assertThat(result.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Failed");
        APIGatewayProxyResponseEvent status = deployment.status(id);
        assertThat(status.getStatusCode()).isEqualTo(504);
        assertThat(ApiEvents.json(status.getBody()).get("status").asText()).isEqualTo("EXPIRED");
        assertThat(deployment.shaper.persistence().queue().depth("nova-lite-undrained", System.currentTimeMillis()))
                .isZero();
        awaitWebhook(id);
    }

    /**
     * A model of its own: a drainer another test woke for {@code nova-lite} may still hold that
     * model's lease and expire an overdue item itself before the sweep comes (as it should), which
     * would leave the sweep nothing to show.
     */
    @Test
    void theScheduledSafetyNetExpiresARequestNobodyDrainsOnceItsDeadlinePasses() {
        Deployment deployment = new Deployment(300, false, 1);
        String id = deployment.submit(body(SWEPT, "overdue-" + System.nanoTime(), 2));
        await().atMost(Duration.ofSeconds(30)).alias("the request is queued")
                .until(() -> deployment.shaper.requests().find(id, System.currentTimeMillis())
                        .map(r -> r.state() == RequestState.QUEUED).orElse(false));
        long deadline = deployment.shaper.requests().find(id, System.currentTimeMillis()).orElseThrow().deadlineMillis();
        await().atMost(Duration.ofSeconds(30)).alias("the deadline passed and no drainer holds the lease")
                .until(() -> System.currentTimeMillis() > deadline && deployment.shaper.persistence().leases()
                        .current(SWEPT, System.currentTimeMillis()).isEmpty());

        Map<String, Object> sweep = new QueueProcessorHandler(deployment.shaper).handleRequest(
                Map.of("source", "schedule"), new FakeContext("queue-processor", 60_000));

        assertThat(sweep.get("expired")).asInstanceOf(InstanceOfAssertFactories.map(String.class, Integer.class))
                .containsKey(SWEPT);
        StateMachineHarness.Result result = deployment.awaitExecution(id);
        assertThat(result.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Failed");
        APIGatewayProxyResponseEvent status = deployment.status(id);
        assertThat(status.getStatusCode()).isEqualTo(504);
        assertThat(ApiEvents.json(status.getBody()).get("status").asText()).isEqualTo("EXPIRED");
        awaitWebhook(id);
    }

    @Test
    void aDuplicateDeliveryOfOneAdmissionCallsBedrockOnceAndEndsOnce() {
        Deployment deployment = new Deployment(300, true, 2);
        long callsBefore = bedrock.calls();
        String id = deployment.submit(body("nova-lite", "twice-" + System.nanoTime(), 60));

        StateMachineHarness.Result result = deployment.awaitExecution(id);

        assertThat(result.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(deployment.processorRuns).hasValue(2);
        assertThat(bedrock.calls() - callsBefore).isEqualTo(1);
        awaitWebhook(id);
    }

    @Test
    void aBedrockCallThatOutlivesTheDeadlineEndsOnceAsAModelTimeoutAndIsDelivered() {
        ModelCatalog served = ModelCatalog.of(List.of(ModelCatalog.parse(MODELS).require("nova-lite")));
        try (BedrockSimulator hanging = BedrockSimulator.builder().catalog(served)
                .faults(new Faults(0, 1.0, 30_000)).seed(3).build().start()) {
            Deployment deployment = new Deployment(300, true, 1, hanging);
            // a model of its own: a drainer an earlier test woke for nova-lite, still running, would
            // take the request to that test's Bedrock, which answers
            String id = deployment.submit(body("nova-lite-hanging", "hang-" + System.nanoTime(), 3));

            StateMachineHarness.Result result = deployment.awaitExecution(id);

            assertThat(result.status()).isEqualTo(ExecutionStatus.FAILED);
            assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Failed");
            APIGatewayProxyResponseEvent status = deployment.status(id);
            JsonNode view = ApiEvents.json(status.getBody());
            assertThat(status.getStatusCode()).isEqualTo(504);
            assertThat(view.get("status").asText()).isEqualTo("FAILED");
            // No answer in time: the call may have run, so it is a model timeout and never sent again.
            assertThat(view.get("reason").asText()).isEqualTo("MODEL_TIMEOUT");
            assertThat(hanging.calls()).isEqualTo(1);
            awaitWebhook(id);
        }
    }

    @Test
    void aRepeatedSubmissionReturnsTheSameRequestAndStartsNoSecondExecution() {
        Deployment deployment = new Deployment(300, true, 1);
        String requestId = "repeat-" + System.nanoTime();
        String first = deployment.submit(body("nova-lite", requestId, 60));
        String second = deployment.submit(body("nova-lite", requestId, 60));

        StateMachineHarness.Result result = deployment.awaitExecution(first);

        assertThat(second).isEqualTo(first).isEqualTo(requestId);
        assertThat(result.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(deployment.harness.sfn().listExecutions(b -> b.stateMachineArn(deployment.harness.stateMachineArn()))
                .executions()).hasSize(1);
    }

    @Test
    void aHandOffThatFailsIsVisibleOnTheRequestAndFinalizeHandsItOffOnceTheQueueIsBack() {
        String lateQueue = "late-deliveries-" + System.nanoTime();
        Deployment deployment = new Deployment(120, true, 1, bedrock,
                Map.of("DELIVERY_QUEUE_URL", aws.endpoint() + "/123456789012/" + lateQueue));
        // a model of its own: a nova-lite drainer an earlier test woke would process the request with its
        // own delivery queue, which exists, and the hand-off would not fail
        String id = deployment.submit(body("nova-lite-late-delivery", "undeliverable-" + System.nanoTime(), 60));

        await().atMost(Duration.ofSeconds(30)).alias("the failed hand-off shows in GET")
                .until(() -> ApiEvents.json(deployment.status(id).getBody()).path("delivery").path("lastError").asText()
                        .contains("not handed off"));
        JsonNode failed = ApiEvents.json(deployment.status(id).getBody());
        assertThat(failed.get("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(failed.path("delivery").path("attempts").asInt()).isZero();
        String queueUrl = sqs.createQueue(b -> b.queueName(lateQueue)).queueUrl();

        StateMachineHarness.Result result = deployment.awaitExecution(id, Duration.ofSeconds(90));

        assertThat(result.status()).as(result.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Succeeded");
        JsonNode handedOff = ApiEvents.json(deployment.status(id).getBody());
        assertThat(handedOff.get("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(handedOff.path("delivery").has("lastError")).as("cleared by the hand-off").isFalse();
        assertThat(sqs.receiveMessage(b -> b.queueUrl(queueUrl).waitTimeSeconds(5)).messages())
                .extracting(m -> ApiEvents.json(m.body()).path("requestId").asText()).containsExactly(id);
    }

    @Test
    void aRepostWithAnotherBodyBeforeTheFirstIsStoredIsAConflictAndTheSameBodyIsNot() {
        CountDownLatch admit = new CountDownLatch(1);
        Deployment deployment = new Deployment(120, true, 1, bedrock, Map.of(), admit);
        String requestId = "race-" + System.nanoTime();
        String first = body("nova-lite", requestId, 60);
        try {
            deployment.submit(first);
            assertThat(deployment.shaper.requests().find(requestId, System.currentTimeMillis()))
                    .as("the Budget Manager has not stored it yet").isEmpty();

            APIGatewayProxyResponseEvent other = deployment.post(first.replace("Say hello", "Say goodbye"));
            APIGatewayProxyResponseEvent same = deployment.post(first);

            assertThat(other.getStatusCode()).as(other.getBody()).isEqualTo(409);
            assertThat(ApiEvents.json(other.getBody()).path("field").asText()).isEqualTo("requestId");
            assertThat(same.getStatusCode()).as(same.getBody()).isEqualTo(202);
        } finally {
            admit.countDown();
        }

        StateMachineHarness.Result result = deployment.awaitExecution(requestId);
        assertThat(result.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(deployment.harness.sfn().listExecutions(b -> b.stateMachineArn(deployment.harness.stateMachineArn()))
                .executions()).hasSize(1);
        awaitWebhook(requestId);
    }

    /** The transitions Step Functions bills: one per state entered. */
    private static long transitions(StateMachineHarness.Result result) {
        return result.history().stream().filter(event -> event.stateEnteredEventDetails() != null).count();
    }

    private static void awaitGate(CountDownLatch gate) {
        try {
            assertThat(gate.await(60, TimeUnit.SECONDS)).as("the test opened the gate").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The webhook arrives once, from the delivery queue, shortly after the execution ends. */
    private static void awaitWebhook(String id) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).alias("webhook of " + id)
                .until(() -> webhookCalls.get(id) != null);
        assertThat(webhookCalls.get(id)).as("webhook of " + id).hasValue(1);
    }

    private static String body(String model, String requestId, int deadlineSeconds) {
        return """
                {"requestId": "%s", "model": "%s", "deadlineSeconds": %d,
                 "callbackUrl": "http://127.0.0.1:%d/hook",
                 "converse": {"messages": [{"role": "user", "content": [{"text": "Say hello to the shaper."}]}],
                              "inferenceConfig": {"maxTokens": 200}}}"""
                .formatted(requestId, model, deadlineSeconds, webhooks.getAddress().getPort());
    }

    private static Function<JsonNode, JsonNode> call(Function<Map<String, Object>, Map<String, Object>> handler) {
        return payload -> Json.MAPPER.valueToTree(handler.apply(
                Json.MAPPER.convertValue(payload, new TypeReference<Map<String, Object>>() { })));
    }
}
