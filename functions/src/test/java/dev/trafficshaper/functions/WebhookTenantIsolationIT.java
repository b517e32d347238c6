package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.aws.dynamodb.DynamoDbStores;
import dev.trafficshaper.composition.ShaperPorts;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * One tenant's slow receiver against another tenant's webhooks, on the real SQS API (moto) and the
 * real Notifier: tenant A's receiver (127.0.0.1) takes 12 s to answer, tenant B's answers at once.
 * A's ten webhooks are queued first, B's eight after them, as in the measured case where one
 * tenant's 12 s receiver delayed another's eight webhooks by 64 s.
 *
 * <p>moto serves a standard queue in its own order and has no fair-queue reordering, so this
 * shows the Notifier's part, which holds on any queue: each message carries its tenant as its
 * {@code MessageGroupId} (the key SQS fair queues reorder by on AWS); a batch's attempts run side
 * by side, so one Notifier invocation holds A's receiver for one attempt timeout, not ten; each of
 * A's webhooks then waits out its retry pause in the queue (the slow path), and B's are all
 * delivered within one attempt timeout of their hand-off, plus the emulator's overhead.
 */
class WebhookTenantIsolationIT {

    private static final String TENANT_A = "arn:aws:iam::123456789012:user/tenant-a";
    private static final String TENANT_B = "arn:aws:iam::123456789012:user/tenant-b";
    private static final String MODEL = "nova-lite";
    private static final String MODELS = """
            {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
              "maxTokens": 2000, "shards": 2, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600}}}""";
    /** The retry pause: long enough that A's webhooks stay hidden for the rest of the test. */
    private static final int RETRY_SECONDS = 60;
    /** Longer than the attempt timeout: A's receiver is slow, not down. */
    private static final Duration SLOW_ANSWER = Duration.ofSeconds(12);
    /**
     * One attempt timeout (the batch of A's webhooks ahead of B's), plus up to as much again for the
     * emulator's overhead (single-threaded, on a shared machine) on two batches' reads and writes.
     * Sent one after another, A's ten attempts alone would take 50 s.
     */
    private static final Duration BOUND = ShaperPorts.WEBHOOK_TIMEOUT.multipliedBy(2).plusSeconds(2);

    private static AwsEmulator aws;
    private static SqsClient sqs;
    private static String queueUrl;
    private static Shaper shaper;
    private static HttpServer slowReceiver;
    private static HttpServer fastReceiver;
    private static final ExecutorService slowThreads = Executors.newCachedThreadPool();
    private static final CountDownLatch released = new CountDownLatch(1);
    private static final Map<String, AtomicInteger> posts = new ConcurrentHashMap<>();
    private static final Map<String, Long> deliveredAtNanos = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() throws IOException {
        aws = AwsEmulator.moto();
        sqs = aws.configure(SqsClient.builder()).build();
        String suffix = Long.toString(System.nanoTime());
        String deadLetterUrl = sqs.createQueue(b -> b.queueName("isolation-dlq-" + suffix)).queueUrl();
        String deadLetterArn = sqs.getQueueAttributes(b -> b.queueUrl(deadLetterUrl)
                .attributeNames(QueueAttributeName.QUEUE_ARN)).attributes().get(QueueAttributeName.QUEUE_ARN);
        queueUrl = sqs.createQueue(b -> b.queueName("isolation-" + suffix).attributes(Map.of(
                QueueAttributeName.VISIBILITY_TIMEOUT, "90",
                QueueAttributeName.REDRIVE_POLICY,
                "{\"deadLetterTargetArn\":\"" + deadLetterArn + "\",\"maxReceiveCount\":\"3\"}"))).queueUrl();
        String bus = "isolation-bus-" + suffix;
        String secretArn;
        try (EventBridgeClient events = aws.configure(EventBridgeClient.builder()).build();
             SecretsManagerClient secrets = aws.configure(SecretsManagerClient.builder()).build()) {
            events.createEventBus(b -> b.name(bus));
            secretArn = secrets.createSecret(b -> b.name("isolation-" + suffix).secretString("isolation-secret")).arn();
        }
        slowReceiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        slowReceiver.setExecutor(slowThreads);
        slowReceiver.createContext("/hook", exchange -> {
            count(exchange.getRequestHeaders().getFirst("X-Shaper-Delivery-Id"));
            exchange.getRequestBody().readAllBytes();
            try {
                released.await(SLOW_ANSWER.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        slowReceiver.start();
        fastReceiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        fastReceiver.createContext("/hook", exchange -> {
            String id = exchange.getRequestHeaders().getFirst("X-Shaper-Delivery-Id");
            count(id);
            exchange.getRequestBody().readAllBytes();
            deliveredAtNanos.putIfAbsent(id, System.nanoTime());
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        fastReceiver.start();
        Map<String, String> env = new HashMap<>(Map.of("TABLE_NAME", aws.createTable("isolation"),
                "PAYLOAD_BUCKET", aws.createBucket("isolation"), "EVENT_BUS_NAME", bus,
                "WEBHOOK_SECRET_ARN", secretArn, "MODELS_CONFIG", MODELS, "SHAPER_LOCAL_CALLBACKS", "true",
                "DELIVERY_QUEUE_URL", queueUrl, "WEBHOOK_MAX_ATTEMPTS", "3",
                "WEBHOOK_FIRST_RETRY_SECONDS", Integer.toString(RETRY_SECONDS),
                "WEBHOOK_MAX_RETRY_SECONDS", Integer.toString(RETRY_SECONDS)));
        shaper = new Shaper(new ShaperEnvironment(env), EmulatorClients.withoutBedrock(aws));
    }

    @AfterAll
    static void stop() {
        released.countDown();
        if (slowReceiver != null) {
            slowReceiver.stop(0);
        }
        if (fastReceiver != null) {
            fastReceiver.stop(0);
        }
        slowThreads.shutdownNow();
    }

    @Test
    void aSlowReceiverOfOneTenantHoldsItsSenderOneTimeoutAndAnotherTenantsWebhooksArriveWithinTheBound() {
        List<String> slow = new ArrayList<>();
        List<String> fast = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            slow.add(ended("a-" + i + "-" + System.nanoTime(), TENANT_A, slowReceiver));
        }
        for (int i = 0; i < 8; i++) {
            fast.add(ended("b-" + i + "-" + System.nanoTime(), TENANT_B, fastReceiver));
        }
        // A warm Notifier: the signing key read and the sender built, as after a cold start.
        shaper.webhookAttempts();
        shaper.services().webhookSender();
        long handOffBegan = System.nanoTime();
        for (String id : slow) {
            shaper.services().notifier().deliver(id);
        }
        for (String id : fast) {
            shaper.services().notifier().deliver(id);
        }
        long handedOff = System.nanoTime();

        Map<String, String> groups = new ConcurrentHashMap<>();
        List<Long> invocationMillis = new ArrayList<>();
        long until = handedOff + Duration.ofSeconds(40).toNanos();
        while (System.nanoTime() < until && !(deliveredAtNanos.keySet().containsAll(fast) && attempted(slow))) {
            long began = System.nanoTime();
            int handled = DeliveryQueuePoller.receiveAndHandle(sqs, queueUrl, shaper, message -> groups.put(
                    requestIdOf(message),
                    String.valueOf(message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))));
            if (handled > 0) {
                invocationMillis.add((System.nanoTime() - began) / 1_000_000);
            }
        }

        assertThat(deliveredAtNanos.keySet()).as("every webhook of tenant B delivered").containsAll(fast);
        long lastFastMillis = fast.stream().mapToLong(id -> (deliveredAtNanos.get(id) - handedOff) / 1_000_000)
                .max().orElseThrow();
        System.out.printf("tenant isolation: 18 hand-offs took %d ms; B's 8 webhooks all delivered %d ms after"
                + " (bound %d ms); Notifier invocations took %s ms%n", (handedOff - handOffBegan) / 1_000_000,
                lastFastMillis, BOUND.toMillis(), invocationMillis);
        assertThat(lastFastMillis).as("B's last webhook, after A's ten slow ones queued ahead of it")
                .isLessThanOrEqualTo(BOUND.toMillis());
        assertThat(invocationMillis).as("a batch takes its slowest attempt, not the sum of ten")
                .allMatch(millis -> millis <= BOUND.toMillis());
        for (String id : fast) {
            DeliveryState state = shaper.requests().find(id, System.currentTimeMillis()).orElseThrow().delivery();
            assertThat(state.delivered()).isTrue();
            assertThat(state.attempts()).isEqualTo(1);
            assertThat(groups).containsEntry(id, TENANT_B);
        }
        for (String id : slow) {
            DeliveryState state = shaper.requests().find(id, System.currentTimeMillis()).orElseThrow().delivery();
            assertThat(state.delivered()).as("A's receiver took longer than the attempt timeout").isFalse();
            assertThat(state.attempts()).isEqualTo(1);
            assertThat(state.lastStatus()).isZero();
            assertThat(state.lastError()).as("the attempt timed out").isNotBlank();
            assertThat(state.nextAttemptAtMillis() - state.lastAttemptAtMillis())
                    .as("the slow path: back in the queue for the retry pause, holding no sender")
                    .isEqualTo(RETRY_SECONDS * 1000L);
            assertThat(posts.get(id)).hasValue(1);
            assertThat(groups).containsEntry(id, TENANT_A);
        }
    }

    private static boolean attempted(List<String> ids) {
        return ids.stream().allMatch(id -> {
            DeliveryState state = shaper.requests().find(id, System.currentTimeMillis()).orElseThrow().delivery();
            return state != null && state.attempts() > 0;
        });
    }

    private static String requestIdOf(Message message) {
        return Json.text(ApiEvents.json(message.body()), "requestId");
    }

    private static void count(String id) {
        posts.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
    }

    /** A request of {@code tenant} that ended FAILED, with {@code receiver} as its callback. */
    private static String ended(String id, String tenant, HttpServer receiver) {
        DynamoDbStores stores = shaper.persistence();
        long now = System.currentTimeMillis();
        PayloadRef body = stores.payloads().put(id, PayloadKind.REQUEST, Payload.json("{}"), now + 600_000);
        stores.queue().enqueue(NewRequest.builder().requestId(id).tenant(tenant).modelKey(MODEL)
                .lane(Lane.INTERACTIVE).deadlineMillis(now + 600_000).estimate(TokenUsage.of(10, 20)).payloadRef(body)
                .taskToken("token-" + id).callbackUrl("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook")
                .build(), now);
        stores.requests().transition(id, RequestEvent.Fail.of(FailureReason.INVALID_REQUEST, "refused by the model"),
                now);
        return id;
    }
}
