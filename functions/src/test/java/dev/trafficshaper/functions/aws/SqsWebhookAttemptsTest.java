package dev.trafficshaper.functions.aws;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.delivery.DeliverySchedule;
import dev.trafficshaper.delivery.StatusService;
import dev.trafficshaper.delivery.WebhookSender;
import dev.trafficshaper.delivery.WebhookTransport;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityRequest;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityResponse;

/**
 * One delivery-queue batch on fake time, with receivers that wait on latches instead of the clock:
 * the batch's attempts run side by side, and one still running at the invocation's limit is
 * answered as a batch item failure rather than holding the invocation.
 */
class SqsWebhookAttemptsTest {

    private static final String HOOK = "http://127.0.0.1:9/hook";

    private final ShaperFixture shaper = new ShaperFixture();
    private final List<String> hidden = new CopyOnWriteArrayList<>();
    private final SqsWebhookQueue queue = new SqsWebhookQueue(new SqsClient() {
        @Override
        public ChangeMessageVisibilityResponse changeMessageVisibility(ChangeMessageVisibilityRequest request) {
            hidden.add(request.receiptHandle() + " " + request.visibilityTimeout());
            return ChangeMessageVisibilityResponse.builder().build();
        }

        @Override
        public String serviceName() {
            return "sqs";
        }

        @Override
        public void close() {
        }
    }, "https://sqs.example/deliveries");

    @Test
    void theAttemptsOfABatchRunSideBySideSoABatchTakesItsSlowestAttemptNotTheSum() {
        CountDownLatch allPosted = new CountDownLatch(3);
        SqsWebhookAttempts attempts = attempts((target, headers, body) -> {
            allPosted.countDown();
            // Answers only once the batch's three attempts are all in flight at the same time.
            return allPosted.await(10, TimeUnit.SECONDS) ? 204 : 500;
        });
        for (String id : List.of("r1", "r2", "r3")) {
            finished(id);
        }

        Map<String, Object> answer = attempts.handle(batch("r1", "r2", "r3"), 60_000);

        assertThat(failures(answer)).isEmpty();
        for (String id : List.of("r1", "r2", "r3")) {
            assertThat(shaper.record(id).delivery().delivered()).isTrue();
        }
    }

    @Test
    void anAttemptStillRunningAtTheInvocationsLimitIsAnsweredAsABatchItemFailure() {
        CountDownLatch receiverAnswers = new CountDownLatch(1);
        SqsWebhookAttempts attempts = attempts((target, headers, body) -> {
            if (headers.get(WebhookSender.DELIVERY_ID_HEADER).equals("slow")) {
                receiverAnswers.await(10, TimeUnit.SECONDS);
            }
            return 204;
        });
        finished("slow");
        finished("fast");

        try {
            // The fast attempt takes microseconds; the slow one would hold the invocation for 10 s.
            Map<String, Object> answer = attempts.handle(batch("slow", "fast"), 1_000);

            assertThat(failures(answer)).containsExactly(Map.of("itemIdentifier", "message-slow"));
            assertThat(shaper.record("fast").delivery().delivered()).isTrue();
        } finally {
            receiverAnswers.countDown();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, String>> failures(Map<String, Object> answer) {
        return (List<Map<String, String>>) answer.get("batchItemFailures");
    }

    private SqsWebhookAttempts attempts(WebhookTransport transport) {
        WebhookSender sender = WebhookSender.builder().requests(shaper.requests)
                .status(StatusService.create(shaper.catalog, shaper.requests, shaper.payloads, shaper.board))
                .transport(transport).callbacks(CallbackUrlPolicy.local())
                .secret("s".getBytes(StandardCharsets.UTF_8))
                .schedule(DeliverySchedule.of(3, Duration.ofSeconds(30), Duration.ofMinutes(1))).build();
        return new SqsWebhookAttempts(queue, sender, shaper.clock);
    }

    private void finished(String requestId) {
        shaper.enqueue(shaper.newRequest(requestId, MODEL, T0 + 60_000).callbackUrl(HOOK).build());
        shaper.admit(requestId);
        shaper.invocations(new FakeModelInvoker()).process(requestId);
    }

    private static JsonNode batch(String... requestIds) {
        ObjectNode event = Json.MAPPER.createObjectNode();
        ArrayNode records = event.putArray("Records");
        for (String id : requestIds) {
            records.addObject().put("messageId", "message-" + id).put("receiptHandle", "receipt-" + id)
                    .put("body", "{\"requestId\":\"" + id + "\"}").putObject("attributes")
                    .put("ApproximateReceiveCount", "1");
        }
        return event;
    }
}
