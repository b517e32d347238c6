package dev.trafficshaper.delivery;

import static dev.trafficshaper.lifecycle.ShaperFixture.FALLBACK;
import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.PACED;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static dev.trafficshaper.lifecycle.ShaperFixture.TENANT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.RejectionKind;
import dev.trafficshaper.bedrock.TransientKind;
import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.lifecycle.StartEstimate;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestEvent;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StatusServiceTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DEADLINE = T0 + 60_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final StatusService status = StatusService.create(shaper.catalog, shaper.requests, shaper.payloads,
            shaper.board);

    @Test
    void aQueuedRequestWithNothingAheadIsPendingWithRetryAfterOneSecond() throws Exception {
        shaper.enqueue("r1", MODEL, DEADLINE);

        StatusService.StatusView view = status.status("r1", TENANT, T0).orElseThrow();

        assertThat(view.httpStatus()).isEqualTo(202);
        assertThat(view.retryAfterSeconds()).isEqualTo(1);
        JsonNode body = JSON.readTree(view.json());
        assertThat(body.get("requestId").asText()).isEqualTo("r1");
        assertThat(body.get("status").asText()).isEqualTo("QUEUED");
        assertThat(body.get("httpStatus").asInt()).isEqualTo(202);
        assertThat(body.get("model").asText()).isEqualTo(MODEL);
        assertThat(body.get("priority").asText()).isEqualTo("interactive");
        assertThat(body.get("submittedAt").asText()).isEqualTo("2023-11-14T22:13:20Z");
        assertThat(body.get("deadlineAt").asText()).isEqualTo("2023-11-14T22:14:20Z");
        assertThat(body.has("response")).isFalse();
        assertThat(body.has("usage")).isFalse();
    }

    @Test
    void retryAfterIsThePredictedWaitUntilAdmissionBetweenOneSecondAndFiveMinutes() {
        shaper.enqueue("r1", MODEL, T0 + 3_600_000);
        Map<Double, Long> retryAfterByBacklogMinutes = new TreeMap<>();

        for (double minutes : new double[] {0.001, 0.05, 0.5, 0.95, 4.0, 10.0}) {
            shaper.board.publish(new ModelStatus(MODEL, T0, 1, minutes, 0, T0, 1.0, 0, 0, ""));
            retryAfterByBacklogMinutes.put(minutes, status.status("r1", TENANT, T0).orElseThrow().retryAfterSeconds());
        }

        assertThat(retryAfterByBacklogMinutes).containsExactly(Map.entry(0.001, 1L), Map.entry(0.05, 3L),
                Map.entry(0.5, 30L), Map.entry(0.95, 57L), Map.entry(4.0, 240L), Map.entry(10.0, 300L));
    }

    @Test
    void aQueuedRequestIsNeverToldToWaitPastItsDeadline() {
        shaper.enqueue("r1", MODEL, DEADLINE);
        shaper.board.publish(new ModelStatus(MODEL, T0, 1, 10.0, 0, T0, 1.0, 0, 0, ""));

        assertThat(status.status("r1", TENANT, T0).orElseThrow().retryAfterSeconds())
                .isEqualTo((DEADLINE - T0) / 1000);
    }

    @Test
    void anAdmittedOrInvokingRequestIsToldToWaitAsLongAsItHasRun() {
        shaper.enqueue("r1", MODEL, T0 + 3_600_000);
        shaper.board.publish(new ModelStatus(MODEL, T0, 1, 10.0, 0, T0, 1.0, 0, 0, ""));
        shaper.admit("r1");
        long admittedAt = shaper.now();

        assertThat(status.status("r1", TENANT, admittedAt).orElseThrow())
                .extracting(StatusService.StatusView::httpStatus, StatusService.StatusView::retryAfterSeconds)
                .containsExactly(202, 1L);

        shaper.requests.transition("r1", new RequestEvent.StartInvoking(), admittedAt);
        Map<Long, Long> retryAfterBySecondsRunning = new TreeMap<>();
        for (long running : new long[] {1, 4, 17, 120}) {
            retryAfterBySecondsRunning.put(running, status.status("r1", TENANT, admittedAt + running * 1000)
                    .orElseThrow().retryAfterSeconds());
        }
        assertThat(retryAfterBySecondsRunning).containsExactly(Map.entry(1L, 1L), Map.entry(4L, 4L),
                Map.entry(17L, 17L), Map.entry(120L, 30L));
    }

    @Test
    void aSucceededRequestIs200WithTheConverseResponseAndUsageEmbedded() throws Exception {
        shaper.enqueue("r1", MODEL, DEADLINE);
        shaper.clock.advance(2_000);
        shaper.admit("r1");
        shaper.invocations(bedrock).process("r1");

        StatusService.StatusView view = status.status("r1", TENANT, shaper.now()).orElseThrow();

        assertThat(view.httpStatus()).isEqualTo(200);
        assertThat(view.retryAfterSeconds()).isZero();
        JsonNode body = JSON.readTree(view.json());
        assertThat(body.get("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(body.get("response")).isEqualTo(JSON.readTree(FakeModelInvoker.success("answer to r1")
                .responseJson()));
        assertThat(body.get("usage").get("inputTokens").asLong()).isEqualTo(FakeModelInvoker.USAGE.inputTokens());
        assertThat(body.get("usage").get("outputTokens").asLong()).isEqualTo(FakeModelInvoker.USAGE.outputTokens());
        assertThat(body.get("usage").get("cacheReadTokens").asLong()).isZero();
        assertThat(body.get("waitMillis").asLong()).isEqualTo(2_000);
        assertThat(body.get("admittedAt").asText()).isEqualTo("2023-11-14T22:13:22Z");
        assertThat(body.get("finishedAt").asText()).isEqualTo("2023-11-14T22:13:22Z");
        assertThat(body.has("reason")).isFalse();
    }

    @Test
    void failuresReportTheirHttpStatusAndReason() throws Exception {
        shaper.enqueue("throttled", MODEL, DEADLINE);
        shaper.requests.transition("throttled", RequestEvent.Fail.of(FailureReason.THROTTLED, "429"), shaper.now());
        failWith("broken", new BedrockOutcome.Rejected(RejectionKind.ACCESS_DENIED, 403, "denied"));
        failWith("invalid", new BedrockOutcome.Rejected(RejectionKind.VALIDATION, 400, "bad"));
        failWith("timed-out", new BedrockOutcome.Transient(TransientKind.CLIENT_TIMEOUT, 0, "no answer"));
        shaper.enqueue("late", MODEL, DEADLINE);
        shaper.queue.expire(QueueItem.of(shaper.record("late")), DEADLINE);

        assertFailure("throttled", 429, "THROTTLED", "FAILED");
        assertFailure("broken", 503, "DEPENDENCY_ERROR", "FAILED");
        assertFailure("invalid", 400, "INVALID_REQUEST", "FAILED");
        assertFailure("timed-out", 504, "MODEL_TIMEOUT", "FAILED");
        assertFailure("late", 504, "DEADLINE_EXPIRED", "EXPIRED");
    }

    @Test
    void anotherTenantsRequestIsReportedLikeAnUnknownOne() {
        shaper.enqueue("r1", MODEL, DEADLINE);

        assertThat(status.status("r1", "globex", T0)).isEmpty();
        assertThat(status.status("nobody", TENANT, T0)).isEmpty();
    }

    @Test
    void listsEveryModelWithQuotasQueueDepthAndEta() throws Exception {
        // nova-lite: a fresh status with one minute of interactive work at a lowered target of 80%.
        shaper.board.publish(new ModelStatus(MODEL, T0 - 1_000, 7, 1.0, 0.5, T0, 0.8, 40, 1, ""));
        // paced: a status too old to say anything about the queue now.
        shaper.board.publish(new ModelStatus(PACED, T0 - StartEstimate.MAX_STATUS_AGE_MILLIS - 1, 99, 50, 50, T0,
                0.5, 0, 0, ""));

        JsonNode models = JSON.readTree(status.models(T0)).get("models");

        assertThat(models).extracting(node -> node.get("key").asText()).containsExactly(MODEL, FALLBACK, PACED);
        JsonNode lite = models.get(0);
        assertThat(lite.get("modelId").asText()).isEqualTo("amazon.nova-lite-v1:0");
        assertThat(lite.get("backend").asText()).isEqualTo("converse");
        assertThat(lite.get("bodyKey").asText()).isEqualTo("converse");
        assertThat(lite.get("quota").get("tpm").asLong()).isEqualTo(1_000_000);
        assertThat(lite.get("quota").get("rpm").asLong()).isZero();
        assertThat(lite.get("quota").get("outputBurndown").asInt()).isEqualTo(1);
        assertThat(lite.get("targetUtilization").asDouble()).isEqualTo(0.95);
        assertThat(lite.get("currentTarget").asDouble()).isEqualTo(0.8);
        assertThat(lite.get("queueDepth").asLong()).isEqualTo(7);
        // 1 min own + min(0.5, 1 × 0.7 / 0.3) of bulk = 1.5 min of quota at 80%: 112.5 s.
        assertThat(lite.get("etaSeconds").asLong()).isEqualTo(113);
        assertThat(lite.get("drainerActive").asBoolean()).isTrue();
        assertThat(lite.get("fallback").asText()).isEqualTo(FALLBACK);
        assertThat(lite.get("maxTokens").asLong()).isEqualTo(10_000);
        assertThat(lite.get("maxDeadlineSeconds").asLong()).isEqualTo(3_600);

        JsonNode micro = models.get(1);
        assertThat(micro.get("queueDepth").asLong()).isZero();
        assertThat(micro.get("etaSeconds").asLong()).isZero();
        assertThat(micro.get("drainerActive").asBoolean()).isFalse();
        assertThat(micro.has("fallback")).isFalse();

        JsonNode paced = models.get(2);
        assertThat(paced.get("quota").get("rpm").asLong()).isEqualTo(60);
        assertThat(paced.get("queueDepth").asLong()).isZero();
        assertThat(paced.get("etaSeconds").asLong()).isZero();
        assertThat(paced.get("currentTarget").asDouble()).isEqualTo(1.0);
        assertThat(paced.get("drainerActive").asBoolean()).isFalse();
    }

    private void failWith(String requestId, BedrockOutcome outcome) {
        shaper.enqueue(requestId, MODEL, DEADLINE);
        shaper.admit(requestId);
        bedrock.answer(requestId, outcome);
        shaper.invocations(bedrock).process(requestId);
    }

    private void assertFailure(String requestId, int httpStatus, String reason, String state) throws Exception {
        StatusService.StatusView view = status.status(requestId, TENANT, DEADLINE).orElseThrow();
        JsonNode body = JSON.readTree(view.json());
        assertThat(view.httpStatus()).as(requestId).isEqualTo(httpStatus);
        assertThat(view.retryAfterSeconds()).as(requestId).isZero();
        assertThat(body.get("httpStatus").asInt()).as(requestId).isEqualTo(httpStatus);
        assertThat(body.get("reason").asText()).as(requestId).isEqualTo(reason);
        assertThat(body.get("status").asText()).as(requestId).isEqualTo(state);
        assertThat(body.has("response")).as(requestId).isFalse();
    }
}
