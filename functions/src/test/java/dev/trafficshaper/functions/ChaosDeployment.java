package dev.trafficshaper.functions;

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
import dev.trafficshaper.lifecycle.Sweeper;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.StateMachineHarness;
import dev.trafficshaper.testing.chaos.ChaosBedrock;
import dev.trafficshaper.testing.chaos.ChaosTally;
import dev.trafficshaper.testing.chaos.DynamoDbChaos;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * One chaos run's deployment: the real handlers through the real state machine in moto, as in
 * {@code RequestLifecycleIT}, with a fault at every seam a run may break — the asynchronous
 * dispatch to the Bedrock Processor (dropped, doubled, a drainer that dies or pauses in it), the
 * Budget Manager's invocation, the adapters' DynamoDB client ({@link DynamoDbChaos}) and Bedrock
 * ({@link ChaosBedrock} in front of the simulator). The services run on a {@link ChaosClock} the
 * run moves forward; {@link #bringToAnEnd} plays the production schedule's safety net on it.
 */
final class ChaosDeployment {

    static final String TENANT = "arn:aws:iam::123456789012:user/chaos";
    static final String MODEL = "nova-lite";
    private static final String MODELS = """
            {"models": {
              "nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 2, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600}
            }}""";

    /** What one dispatch of an admission does. */
    enum Delivery { ONCE, DROP, TWICE, KILL_DRAINER, PAUSE }

    /** Chooses what the {@code nth} dispatch (1, 2, ...) of a request does. */
    @FunctionalInterface
    interface DispatchPlan {
        Delivery delivery(String requestId, int nth);
    }

    /** What a drainer that dies in the middle of its batch throws. */
    static final class DrainerKilled extends Error {
        DrainerKilled(String requestId) {
            super("drainer killed while dispatching " + requestId);
        }
    }

    /** Everything the runs share: the emulator, the simulator and its front, the webhook receiver. */
    static final class Stack implements AutoCloseable {
        final AwsEmulator aws = AwsEmulator.moto();
        final Map<String, String> env;
        final BedrockSimulator simulator;
        final ChaosBedrock bedrock;
        final HttpServer webhooks;
        final Map<String, ChaosTally> tallies = new ConcurrentHashMap<>();
        final SqsClient sqs;

        Stack() {
            String bus = "chaos-bus-" + System.nanoTime();
            try (EventBridgeClient events = aws.configure(EventBridgeClient.builder()).build();
                 SecretsManagerClient secrets = aws.configure(SecretsManagerClient.builder()).build()) {
                events.createEventBus(b -> b.name(bus));
                String secretArn = secrets.createSecret(b -> b.name("chaos-webhook-" + System.nanoTime())
                        .secretString("chaos-secret")).arn();
                env = Map.of("EVENT_BUS_NAME", bus, "WEBHOOK_SECRET_ARN", secretArn, "MODELS_CONFIG", MODELS,
                        "SHAPER_LOCAL_CALLBACKS", "true", "QUEUE_PROCESSOR_FUNCTION", "queue-processor",
                        "BEDROCK_PROCESSOR_FUNCTION", "bedrock-processor");
            }
            sqs = aws.configure(SqsClient.builder()).build();
            simulator = BedrockSimulator.builder().catalog(ModelCatalog.parse(MODELS))
                    .latency(new LatencyModel(20, 0.1, 0)).seed(11).build().start();
            bedrock = ChaosBedrock.inFrontOf(simulator.endpoint());
            webhooks = receiver();
        }

        private HttpServer receiver() {
            try {
                HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
                server.createContext("/hook", exchange -> {
                    JsonNode body = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
                    String id = body.path("requestId").asText();
                    ChaosTally tally = tallies.get(id);
                    if (tally != null) {
                        tally.webhook(id, body.path("status").asText());
                    }
                    exchange.sendResponseHeaders(204, -1);
                    exchange.close();
                });
                server.start();
                return server;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String callbackUrl() {
            return "http://127.0.0.1:" + webhooks.getAddress().getPort() + "/hook";
        }

        @Override
        public void close() {
            webhooks.stop(0);
            bedrock.close();
            simulator.stop();
        }
    }

    final Stack stack;
    final ChaosTally tally;
    final ChaosClock clock = new ChaosClock();
    final DynamoDbChaos dynamoDb = new DynamoDbChaos();
    final StateMachineHarness harness;
    final Shaper shaper;
    final AtomicInteger drainersKilled = new AtomicInteger();
    final AtomicInteger processorsKilled = new AtomicInteger();
    private final ExecutorService async = Executors.newCachedThreadPool();
    private final Map<String, AtomicInteger> dispatches = new ConcurrentHashMap<>();
    private final CountDownLatch pause = new CountDownLatch(1);
    private final CountDownLatch paused = new CountDownLatch(1);
    private volatile DispatchPlan plan = (id, nth) -> Delivery.ONCE;
    private volatile boolean wakeDrainers = true;
    private volatile Predicate<String> budgetManagerFails = id -> false;
    private volatile boolean polling = true;
    private final Thread poller;

    /** A deployment of its own: table, bucket, delivery queue and state machine, so no run sees another's. */
    ChaosDeployment(Stack stack, ChaosTally tally) {
        this.stack = stack;
        this.tally = tally;
        String deliveries = stack.sqs.createQueue(b -> b.queueName("chaos-deliveries-" + System.nanoTime())).queueUrl();
        Map<String, String> env = new HashMap<>(stack.env);
        env.put("TABLE_NAME", stack.aws.createTable("chaos"));
        env.put("PAYLOAD_BUCKET", stack.aws.createBucket("chaos"));
        env.put("DELIVERY_QUEUE_URL", deliveries);
        Shaper[] self = new Shaper[1];
        InvocationDispatch dispatch = (model, requestId) -> {
            int nth = dispatches.computeIfAbsent(requestId, id -> new AtomicInteger()).incrementAndGet();
            Delivery delivery = plan.delivery(requestId, nth);
            if (delivery != Delivery.ONCE) {
                tally.fault();
            }
            switch (delivery) {
                case DROP -> { }
                case TWICE -> {
                    runProcessor(self[0], model, requestId);
                    runProcessor(self[0], model, requestId);
                }
                case KILL_DRAINER -> throw new DrainerKilled(requestId);
                case PAUSE -> {
                    paused.countDown();
                    awaitQuietly(pause);
                    runProcessor(self[0], model, requestId);
                }
                default -> runProcessor(self[0], model, requestId);
            }
        };
        DrainerWake wake = model -> {
            if (wakeDrainers) {
                drain(self[0], model);
            }
        };
        harness = StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", call(payload -> {
                    String id = String.valueOf(((Map<?, ?>) payload.get("request")).get("requestId"));
                    if (budgetManagerFails.test(id)) {
                        tally.fault();
                        throw software.amazon.awssdk.services.lambda.model.TooManyRequestsException.builder()
                                .message("Rate exceeded (injected)").build();
                    }
                    return new BudgetManagerHandler(self[0]).handleRequest(payload, new FakeContext("budget", 30_000));
                }))
                .function("FinalizerFunctionArn", call(payload ->
                        new FinalizerHandler(self[0]).handleRequest(payload, new FakeContext("finalizer", 30_000))))
                .build();
        env.put("STATE_MACHINE_ARN", harness.stateMachineArn());
        DynamoDbClient chaosClient = stack.aws.configure(DynamoDbClient.builder())
                .overrideConfiguration(o -> o.addExecutionInterceptor(dynamoDb))
                .httpClient(UrlConnectionHttpClient.builder().build()).build();
        shaper = Shaper.withAsync(new ShaperEnvironment(env),
                EmulatorClients.withBedrock(stack.aws, chaosClient, stack.bedrock.endpoint()), dispatch, wake, clock);
        self[0] = shaper;
        // The delivery queue's event source mapping, with a client no fault touches.
        Shaper notifier = new Shaper(new ShaperEnvironment(env),
                EmulatorClients.withBedrock(stack.aws, stack.bedrock.endpoint()));
        poller = new Thread(() -> {
            while (polling) {
                try {
                    DeliveryQueuePoller.receiveAndHandle(stack.sqs, deliveries, notifier);
                } catch (RuntimeException e) {
                    System.err.println("delivery poll failed: " + e);
                }
            }
        }, "chaos-delivery-poller");
        poller.setDaemon(true);
        poller.start();
    }

    void plan(DispatchPlan value) {
        plan = value;
    }

    void wakeDrainers(boolean value) {
        wakeDrainers = value;
    }

    void budgetManagerFails(Predicate<String> value) {
        budgetManagerFails = value;
    }

    /** Waits until a dispatch planned {@link Delivery#PAUSE} holds its drainer. */
    void awaitPaused() {
        if (!awaitQuietly(paused, 60)) {
            throw new AssertionError("no drainer paused in a dispatch");
        }
    }

    void resumePaused() {
        pause.countDown();
    }

    /** A Queue Processor invocation for the model, as the wake-up's asynchronous invoke runs it. */
    void drain(Shaper target, String model) {
        async.execute(() -> {
            try {
                // The handler reckons its stop time on the wall clock; the services run on the chaos clock.
                new QueueProcessorHandler(target).handleRequest(Map.of("model", model),
                        new FakeContext("queue-processor", 60_000 + clock.offsetMillis()));
            } catch (DrainerKilled e) {
                drainersKilled.incrementAndGet();
            } catch (RuntimeException e) {
                System.err.println("drainer stopped: " + e);
            }
        });
    }

    void drain() {
        drain(shaper, MODEL);
    }

    private void runProcessor(Shaper target, String model, String requestId) {
        async.execute(() -> {
            try {
                new BedrockProcessorHandler(target).handleRequest(Map.of("model", model, "requestId", requestId),
                        new FakeContext("bedrock-processor", 60_000));
            } catch (DynamoDbChaos.ProcessKilled e) {
                processorsKilled.incrementAndGet();
            } catch (RuntimeException e) {
                System.err.println("bedrock processor stopped: " + e);
            }
        });
    }

    /** Submits one request as a client would: a 5xx is retried with the same requestId. */
    String submit(String requestId, int deadlineSeconds) {
        String body = """
                {"requestId": "%s", "model": "%s", "deadlineSeconds": %d, "callbackUrl": "%s",
                 "converse": {"messages": [{"role": "user", "content": [{"text": "Say hello %s"}]}],
                              "inferenceConfig": {"maxTokens": 100}}}"""
                .formatted(requestId, MODEL, deadlineSeconds, stack.callbackUrl(), ChaosBedrock.marker(requestId));
        stack.tallies.put(requestId, tally);
        for (int attempt = 1; attempt <= 8; attempt++) {
            APIGatewayProxyResponseEvent response;
            try {
                response = new SubmitHandler(shaper).handleRequest(ApiEvents.submit(body, TENANT),
                        new FakeContext("submit", 10_000));
            } catch (RuntimeException e) {
                continue; // API Gateway answers a function error with a 502: the client retries
            }
            if (response.getStatusCode() == 202) {
                tally.submitted(requestId, System.currentTimeMillis() + deadlineSeconds * 1000L);
                return requestId;
            }
            if (response.getStatusCode() < 500 && response.getStatusCode() != 429) {
                throw new AssertionError("submission of " + requestId + " refused: " + response.getStatusCode() + " "
                        + response.getBody());
            }
        }
        throw new AssertionError("submission of " + requestId + " failed 8 times");
    }

    List<String> submitAll(String prefix, int count, int deadlineSeconds) {
        return submitAll(prefix, java.util.stream.IntStream.range(0, count).boxed().toList(), i -> deadlineSeconds);
    }

    /** Submits {@code prefix-<run>-<i>} for each index in that order, each with its own deadline. */
    List<String> submitAll(String prefix, List<Integer> indices, java.util.function.IntUnaryOperator deadlineSeconds) {
        String run = prefix + "-" + Long.toString(System.nanoTime(), 36);
        return indices.stream().map(i -> submit(run + "-" + i, deadlineSeconds.applyAsInt(i))).toList();
    }

    Optional<RequestRecord> record(String requestId) {
        return shaper.persistence().requests().find(requestId, clock.nowMillis());
    }

    Optional<RequestRecord> storedRecord(String requestId) {
        try {
            return record(requestId);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    JsonNode status(String requestId) {
        APIGatewayProxyResponseEvent response = new StatusHandler(shaper).handleRequest(
                ApiEvents.status(requestId, TENANT), new FakeContext("status", 10_000));
        return ApiEvents.json(response.getBody()).deepCopy();
    }

    /** Every request's record, read in one batch (a failed read reads as none). */
    Map<String, RequestRecord> records(List<String> ids) {
        try {
            return shaper.persistence().requests().findAll(ids, clock.nowMillis());
        } catch (RuntimeException e) {
            return Map.of();
        }
    }

    /** Waits (wall time) until {@code done} holds for every request, or {@code limit} passes. */
    boolean awaitAll(List<String> ids, Predicate<RequestRecord> done, Duration limit) {
        long until = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < until) {
            Map<String, RequestRecord> records = records(ids);
            if (ids.stream().allMatch(id -> records.containsKey(id) && done.test(records.get(id)))) {
                return true;
            }
            sleep(500);
        }
        return false;
    }

    /**
     * Heals every fault, then plays the production schedule on the chaos clock until every request
     * has ended and its webhook arrived or its failure shows: while nothing moves for two seconds,
     * the clock jumps past the sweeper's grace and the safety net sweeps, as its one-minute
     * schedule would. Stops once the clock passes every deadline + 2 minutes; the checks judge.
     */
    void bringToAnEnd(List<String> ids) {
        dynamoDb.heal();
        plan = (id, nth) -> Delivery.ONCE;
        budgetManagerFails = id -> false;
        wakeDrainers = true;
        long lastDeadline = ids.stream().mapToLong(id -> storedRecord(id).map(RequestRecord::deadlineMillis)
                .orElse(System.currentTimeMillis() + 60_000)).max().orElse(0);
        String last = "";
        long quietSince = System.nanoTime();
        long wallLimit = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < wallLimit) {
            Map<String, RequestRecord> records = records(ids);
            String now = ids.stream().map(id -> id + "=" + Optional.ofNullable(records.get(id)).map(r -> r.state() + "/"
                    + (r.delivery() == null ? "" : r.delivery().attempts())).orElse("none") + "/"
                    + tally.webhookDelivered(id)).collect(Collectors.joining(","));
            if (ids.stream().allMatch(id -> ended(id, records.get(id)))) {
                return;
            }
            if (!now.equals(last)) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(2)) {
                if (clock.nowMillis() > lastDeadline + ChaosTally.LATE_MARGIN_MILLIS) {
                    return;
                }
                clock.advance(Sweeper.GRACE.plusSeconds(1));
                shaper.safetyNet().sweep(clock.nowMillis());
                quietSince = System.nanoTime();
            }
            sleep(500);
        }
    }

    private boolean ended(String id, RequestRecord record) {
        return record != null && record.isTerminal() && (tally.webhookDelivered(id) || failureVisible(status(id)));
    }

    /** Reads every request's end into the tally and checks it. */
    ChaosTally.Verdict verify(List<String> ids) {
        for (String id : ids) {
            Optional<RequestRecord> record = storedRecord(id);
            record.ifPresent(r -> tally.deadline(id, r.deadlineMillis()));
            tally.outcome(id, new ChaosTally.Outcome(record.map(r -> r.state().name()).orElse(null),
                    record.map(r -> r.failureReason() == null ? null : r.failureReason().name()).orElse(null),
                    record.map(RequestRecord::finishedAtMillis).orElse(0L), failureVisible(status(id))));
        }
        return tally.verify();
    }

    static boolean failureVisible(JsonNode view) {
        JsonNode delivery = view.path("delivery");
        return delivery.path("deadLettered").asBoolean(false) || delivery.hasNonNull("lastError")
                || (delivery.path("attempts").asInt(0) > 0 && !delivery.path("delivered").asBoolean(false));
    }

    void close() throws InterruptedException {
        polling = false;
        pause.countDown();
        poller.join(30_000);
        // Not interrupted: a call cut off half-sent would hold the single-threaded emulator.
        async.shutdown();
    }

    private static Function<JsonNode, JsonNode> call(Function<Map<String, Object>, Map<String, Object>> handler) {
        return payload -> Json.MAPPER.valueToTree(handler.apply(
                Json.MAPPER.convertValue(payload, new TypeReference<Map<String, Object>>() { })));
    }

    private static boolean awaitQuietly(CountDownLatch latch) {
        return awaitQuietly(latch, 120);
    }

    private static boolean awaitQuietly(CountDownLatch latch, int seconds) {
        try {
            return latch.await(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
