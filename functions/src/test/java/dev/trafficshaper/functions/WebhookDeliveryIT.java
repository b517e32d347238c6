package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.aws.dynamodb.DynamoDbStores;
import dev.trafficshaper.aws.s3.S3PayloadObjects;
import dev.trafficshaper.delivery.WebhookSignature;
import dev.trafficshaper.functions.status.StatusHandler;
import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.testing.AwsEmulator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The Notifier's two roles against moto: the Deliver step queues the webhook in SQS and publishes
 * the outcome event on EventBridge; the delivery queue's messages, handed to the same handler as
 * the event source mapping hands them (a poller in this test), make one signed attempt each
 * against a receiver on 127.0.0.1, retried through the messages' visibility timeouts and moved to
 * the dead-letter queue by the redrive policy. The schedule is shortened to 3 attempts 1 s apart.
 */
class WebhookDeliveryIT {

    private static final String TENANT = "arn:aws:iam::123456789012:user/alice";
    private static final String MODEL = "nova-lite";
    private static final String MODELS = """
            {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
              "maxTokens": 2000, "shards": 2, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600}}}""";
    private static final byte[] SECRET = "webhook-secret-for-tests".getBytes(StandardCharsets.UTF_8);

    private static AwsEmulator aws;
    private static SqsClient sqs;
    private static HttpServer receiver;
    private static String queueUrl;
    private static String deadLetterUrl;
    private static String eventsUrl;
    private static String bucket;
    private static Shaper shaper;
    /** Per request id: how many of the first posts the receiver answers 503 (all: -1). */
    private static final Map<String, Integer> failFirst = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> posts = new ConcurrentHashMap<>();
    private static final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        aws = AwsEmulator.moto();
        sqs = aws.configure(SqsClient.builder()).build();
        String suffix = Long.toString(System.nanoTime());
        deadLetterUrl = sqs.createQueue(b -> b.queueName("deliveries-dlq-" + suffix)).queueUrl();
        String deadLetterArn = sqs.getQueueAttributes(b -> b.queueUrl(deadLetterUrl)
                .attributeNames(QueueAttributeName.QUEUE_ARN)).attributes().get(QueueAttributeName.QUEUE_ARN);
        queueUrl = sqs.createQueue(b -> b.queueName("deliveries-" + suffix).attributes(Map.of(
                QueueAttributeName.VISIBILITY_TIMEOUT, "30",
                QueueAttributeName.REDRIVE_POLICY,
                "{\"deadLetterTargetArn\":\"" + deadLetterArn + "\",\"maxReceiveCount\":\"3\"}"))).queueUrl();
        eventsUrl = sqs.createQueue(b -> b.queueName("outcome-events-" + suffix)).queueUrl();
        String eventsArn = sqs.getQueueAttributes(b -> b.queueUrl(eventsUrl)
                .attributeNames(QueueAttributeName.QUEUE_ARN)).attributes().get(QueueAttributeName.QUEUE_ARN);
        String bus = "shaper-bus-" + suffix;
        String secretArn;
        try (EventBridgeClient events = aws.configure(EventBridgeClient.builder()).build();
             SecretsManagerClient secrets = aws.configure(SecretsManagerClient.builder()).build()) {
            events.createEventBus(b -> b.name(bus));
            events.putRule(b -> b.name("outcomes").eventBusName(bus).eventPattern("{\"source\":[\"traffic-shaper\"]}"));
            events.putTargets(b -> b.rule("outcomes").eventBusName(bus).targets(t -> t.id("q").arn(eventsArn)));
            secretArn = secrets.createSecret(b -> b.name("webhook-" + suffix)
                    .secretString(new String(SECRET, StandardCharsets.UTF_8))).arn();
        }
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            String id = exchange.getRequestHeaders().getFirst("X-Shaper-Delivery-Id");
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String timestamp = exchange.getRequestHeaders().getFirst(WebhookSignature.TIMESTAMP_HEADER);
            headers.add(Map.of("id", id, "attempt", exchange.getRequestHeaders().getFirst("X-Shaper-Delivery-Attempt"),
                    "signed", Boolean.toString(WebhookSignature.sign(SECRET, Long.parseLong(timestamp), body)
                            .equals(exchange.getRequestHeaders().getFirst(WebhookSignature.SIGNATURE_HEADER)))));
            int count = posts.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
            int failures = failFirst.getOrDefault(id, 0);
            exchange.sendResponseHeaders(failures < 0 || count <= failures ? 503 : 204, -1);
            exchange.close();
        });
        receiver.start();
        String table = aws.createTable("deliveries");
        bucket = aws.createBucket("deliveries");
        Map<String, String> env = new HashMap<>(Map.of("TABLE_NAME", table, "PAYLOAD_BUCKET", bucket,
                "EVENT_BUS_NAME", bus, "WEBHOOK_SECRET_ARN", secretArn, "MODELS_CONFIG", MODELS,
                "SHAPER_LOCAL_CALLBACKS", "true", "DELIVERY_QUEUE_URL", queueUrl, "WEBHOOK_MAX_ATTEMPTS", "3",
                "WEBHOOK_FIRST_RETRY_SECONDS", "1", "WEBHOOK_MAX_RETRY_SECONDS", "1"));
        shaper = new Shaper(new ShaperEnvironment(env), EmulatorClients.withoutBedrock(aws));
    }

    @AfterAll
    static void stop() {
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void aReceiverThatFailsTwiceGetsTheWebhookOnTheThirdAttemptAndGetSaysSo() {
        String id = "flaky-" + System.nanoTime();
        failFirst.put(id, 2);
        failed(id);

        Map<String, Object> step = deliverStep(id);
        assertThat(step).containsEntry("webhookQueued", true);
        DeliveryState state = pollUntilSettled(id, Duration.ofSeconds(40));

        assertThat(posts.get(id)).hasValue(3);
        assertThat(state.attempts()).isEqualTo(3);
        assertThat(state.delivered()).isTrue();
        assertThat(state.lastStatus()).isEqualTo(204);
        assertThat(headers).filteredOn(h -> h.get("id").equals(id)).extracting(h -> h.get("attempt"))
                .containsExactly("1", "2", "3");
        assertThat(headers).filteredOn(h -> h.get("id").equals(id)).allMatch(h -> h.get("signed").equals("true"));
        JsonNode delivery = get(id).path("delivery");
        assertThat(delivery.path("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.path("lastStatus").asInt()).isEqualTo(204);
        assertThat(delivery.path("delivered").asBoolean()).isTrue();
        assertThat(delivery.path("deadLettered").asBoolean()).isFalse();
        assertThat(delivery.has("lastAttemptAt")).isTrue();
    }

    @Test
    void aReceiverThatAlwaysFailsEndsDeadLetteredVisibleInGetAndInTheDeadLetterQueue() {
        String id = "dead-" + System.nanoTime();
        failFirst.put(id, -1);
        failed(id);

        deliverStep(id);
        DeliveryState state = pollUntilSettled(id, Duration.ofSeconds(40));

        assertThat(posts.get(id)).hasValue(3);
        assertThat(state.deadLettered()).isTrue();
        assertThat(state.delivered()).isFalse();
        JsonNode delivery = get(id).path("delivery");
        assertThat(delivery.path("deadLettered").asBoolean()).isTrue();
        assertThat(delivery.path("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.path("lastStatus").asInt()).isEqualTo(503);
        assertThat(delivery.path("lastError").asText()).isEqualTo("HTTP 503");
        List<String> deadLettered = new ArrayList<>();
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!deadLettered.contains(id) && System.nanoTime() < until) {
            receiveAndHandle();
            for (Message m : sqs.receiveMessage(b -> b.queueUrl(deadLetterUrl).waitTimeSeconds(0)).messages()) {
                deadLettered.add(ApiEvents.json(m.body()).path("requestId").asText());
            }
        }
        assertThat(deadLettered).as("moved by the redrive policy after the third receive").contains(id);
        assertThat(posts.get(id)).as("no fourth attempt").hasValue(3);
    }

    @Test
    void aWebhookWhoseResultCannotBeReadFailsEveryAttemptOnTheRequestAndEndsDeadLetteredThere() {
        String id = "unreadable-" + System.nanoTime();
        PayloadRef result = succeeded(id, "{\"output\":{\"message\":{\"role\":\"assistant\",\"content\":[{\"text\":\""
                + "y".repeat(16 * 1024) + "\"}]}},\"stopReason\":\"end_turn\"}");
        assertThat(result.location()).isEqualTo(PayloadRef.Location.OBJECT);
        aws.s3().putObject(b -> b.bucket(bucket).key(S3PayloadObjects.PREFIX + result.key()),
                RequestBody.fromString("{\"tampered\":true}"));

        deliverStep(id);
        DeliveryState state = pollUntilSettled(id, Duration.ofSeconds(40));

        assertThat(posts.get(id)).as("nothing to sign, nothing sent").isNull();
        assertThat(state.deadLettered()).as("recorded on the request, not only moved by the redrive policy").isTrue();
        assertThat(state.attempts()).isEqualTo(3);
        assertThat(state.lastStatus()).isZero();
        assertThat(state.lastError()).startsWith("webhook not rendered: ");
    }

    @Test
    void theOutcomeEventOfA400KbResponseIsASmallReferenceAndPutEventsSucceeds() throws Exception {
        String id = "big-" + System.nanoTime();
        PayloadRef result = succeeded(id, "{\"output\":{\"message\":{\"role\":\"assistant\",\"content\":[{\"text\":\""
                + "x".repeat(400 * 1024) + "\"}]}},\"stopReason\":\"end_turn\"}");
        assertThat(result.sizeBytes()).isGreaterThan(256 * 1024);
        assertThat(result.location()).as("over the inline limit: an S3 object").isEqualTo(PayloadRef.Location.OBJECT);

        Map<String, Object> step = deliverStep(id);

        assertThat(step).containsEntry("delivered", true);
        JsonNode event = null;
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (event == null && System.nanoTime() < until) {
            List<Message> received = sqs.receiveMessage(b -> b.queueUrl(eventsUrl).waitTimeSeconds(0)
                    .maxNumberOfMessages(10)).messages();
            if (received.isEmpty()) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
            }
            for (Message m : received) {
                JsonNode candidate = ApiEvents.json(m.body());
                if (id.equals(candidate.path("detail").path("requestId").asText())) {
                    event = candidate;
                }
            }
        }
        assertThat(event).as("the outcome event reached the bus's rule").isNotNull();
        JsonNode detail = event.path("detail");
        assertThat(detail.toString().length()).isLessThan(2048);
        assertThat(detail.path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(detail.path("statusUrl").asText()).isEqualTo("/v1/requests/" + id);
        assertThat(detail.path("resultSizeBytes").asLong()).isEqualTo(result.sizeBytes());
        assertThat(detail.path("resultKey").asText()).isEqualTo(result.key());
        assertThat(detail.has("response")).isFalse();
        assertThat(get(id).path("response").path("output").path("message").isObject())
                .as("the body stays readable through GET").isTrue();
    }

    /** A request that ended FAILED, with the receiver as its callback. */
    private static void failed(String id) {
        DynamoDbStores stores = shaper.persistence();
        long now = System.currentTimeMillis();
        stores.queue().enqueue(newRequest(id, now), now);
        stores.requests().transition(id, RequestEvent.Fail.of(FailureReason.INVALID_REQUEST, "refused by the model"),
                now);
    }

    /** A request that ended SUCCEEDED with {@code response} stored as its result. */
    private static PayloadRef succeeded(String id, String response) {
        DynamoDbStores stores = shaper.persistence();
        long now = System.currentTimeMillis();
        stores.queue().enqueue(newRequest(id, now), now);
        Lease lease = stores.leases().acquire(MODEL, "test-" + id, 60_000, now).lease();
        stores.queue().admit(lease, stores.queue().heads(MODEL, 100, now).work().stream()
                .filter(item -> item.requestId().equals(id)).toList(), now);
        stores.requests().transition(id, new RequestEvent.StartInvoking(), now);
        PayloadRef result = stores.payloads().put(id, PayloadKind.RESULT, Payload.json(response), now + 600_000);
        stores.requests().transition(id, new RequestEvent.Succeed(TokenUsage.of(10, 20), result), now);
        stores.leases().release(lease, now);
        return result;
    }

    private static NewRequest newRequest(String id, long now) {
        PayloadRef body = shaper.persistence().payloads().put(id, PayloadKind.REQUEST, Payload.json("{}"), now + 600_000);
        return NewRequest.builder().requestId(id).tenant(TENANT).modelKey(MODEL).lane(Lane.INTERACTIVE)
                .deadlineMillis(now + 600_000).estimate(TokenUsage.of(10, 20)).payloadRef(body)
                .taskToken("token-" + id).callbackUrl("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook")
                .build();
    }

    /** The delivery hand-off the writer of the terminal state makes (here after a direct write). */
    private static Map<String, Object> deliverStep(String id) {
        return shaper.services().notifier().deliver(id)
                .map(d -> Map.<String, Object>of("delivered", true, "webhookQueued", d.webhookQueued()))
                .orElse(Map.of("delivered", false));
    }

    /** Plays the event source mapping until the request's delivery is settled. */
    private static DeliveryState pollUntilSettled(String id, Duration timeout) {
        long until = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < until) {
            receiveAndHandle();
            RequestRecord record = shaper.requests().find(id, System.currentTimeMillis()).orElseThrow();
            if (record.delivery() != null && record.delivery().attempts() > 0 && record.delivery().isSettled()) {
                return record.delivery();
            }
        }
        throw new AssertionError("delivery of " + id + " not settled within " + timeout + ": "
                + shaper.requests().find(id, System.currentTimeMillis()).orElseThrow().delivery());
    }

    private static void receiveAndHandle() {
        DeliveryQueuePoller.receiveAndHandle(sqs, queueUrl, shaper);
    }

    private static JsonNode get(String id) {
        APIGatewayProxyResponseEvent response = new StatusHandler(shaper).handleRequest(ApiEvents.status(id, TENANT),
                new FakeContext("status", 10_000));
        return ApiEvents.json(response.getBody());
    }
}
