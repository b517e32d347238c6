package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.FALLBACK;
import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import dev.trafficshaper.submission.InvalidSubmissionException;
import dev.trafficshaper.submission.SubmissionParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SubmissionServiceTest {

    private static final String PROMPT = "x".repeat(400); // 100 tokens + 3 for the turn
    private static final long INPUT_ESTIMATE = 103;

    private final ShaperFixture shaper = new ShaperFixture();
    private final List<String> stored = new ArrayList<>();
    private final PayloadStore recordingPayloads = new PayloadStore() {
        @Override
        public PayloadRef put(String requestId, PayloadKind kind, Payload payload, long expiresAtMillis) {
            stored.add(requestId);
            return shaper.payloads.put(requestId, kind, payload, expiresAtMillis);
        }

        @Override
        public Optional<Payload> get(PayloadRef ref, long nowMillis) {
            return shaper.payloads.get(ref, nowMillis);
        }
    };
    private final AtomicInteger generated = new AtomicInteger();
    private final SubmissionService service = SubmissionService.builder().catalog(shaper.catalog)
            .parser(SubmissionParser.create(shaper.catalog, CallbackUrlPolicy.strict().resolvingWith(host -> {
                throw new java.net.UnknownHostException(host);
            }), 64 * 1024))
            .estimator(CharacterTokenEstimator.withMargin(0)).payloads(recordingPayloads).requests(shaper.requests)
            .board(shaper.board).ids(() -> "gen-" + generated.incrementAndGet()).build();

    @Test
    void acceptsAValidSubmissionAsATicketWithItsBodyStoredByReference() throws Exception {
        SubmissionService.Accepted accepted = service.submit("acme",
                body("\"requestId\": \"r1\", \"priority\": \"bulk\", \"deadlineSeconds\": 60, "
                        + "\"callbackUrl\": \"https://hooks.example.com/done\"", 500), T0);

        assertThat(accepted.isNew()).isTrue();
        Ticket ticket = accepted.ticket();
        assertThat(ticket.requestId()).isEqualTo("r1");
        assertThat(ticket.tenant()).isEqualTo("acme");
        assertThat(ticket.modelKey()).isEqualTo(MODEL);
        assertThat(ticket.lane()).isEqualTo(Lane.BULK);
        assertThat(ticket.submittedAtMillis()).isEqualTo(T0);
        assertThat(ticket.deadlineMillis()).isEqualTo(T0 + 60_000);
        assertThat(ticket.estimate()).isEqualTo(TokenUsage.of(INPUT_ESTIMATE, 500));
        assertThat(ticket.callbackUrl()).isEqualTo("https://hooks.example.com/done");
        Payload body = shaper.payloads.get(ticket.payloadRef(), T0).orElseThrow();
        assertThat(new ObjectMapper().readTree(body.bytes())).isEqualTo(new ObjectMapper().readTree(converse(500)));
        assertThat(stored).containsExactly("r1");
        assertThat(shaper.requests.find("r1", T0)).as("the ticket is enqueued by the Budget Manager, not here")
                .isEmpty();
    }

    @Test
    void generatesAnIdWhenTheCallerGivesNone() {
        assertThat(service.submit("acme", body("", 100), T0).requestId()).isEqualTo("gen-1");
        assertThat(service.submit("acme", body("", 100), T0).requestId()).isEqualTo("gen-2");
    }

    @Test
    void aRepeatedRequestIdOfTheSameTenantReturnsTheStoredRequest() {
        Ticket first = service.submit("acme", body("\"requestId\": \"r1\"", 100), T0).ticket();
        AdmissionService.create(shaper.queue, shaper.requests, shaper.leases, shaper.wake, shaper.callback)
                .admit(first, "token-1", T0);
        stored.clear();

        SubmissionService.Accepted again = service.submit("acme", body("\"requestId\": \"r1\"", 100), T0 + 5_000);

        assertThat(again.isNew()).isFalse();
        assertThat(again.requestId()).isEqualTo("r1");
        assertThat(again.existing().enqueuedAtMillis()).isEqualTo(T0);
        assertThat(shaper.requests.taskToken("r1", T0 + 5_000)).contains("token-1");
        assertThat(stored).isEmpty();
    }

    @Test
    void aRepeatedRequestIdWithAnotherBodyIsAConflictAndNothingIsStored() {
        Ticket first = service.submit("acme", body("\"requestId\": \"r1\"", 100), T0).ticket();
        AdmissionService.create(shaper.queue, shaper.requests, shaper.leases, shaper.wake, shaper.callback)
                .admit(first, "token-1", T0);
        stored.clear();

        assertThatThrownBy(() -> service.submit("acme", body("\"requestId\": \"r1\"", 101), T0 + 5_000))
                .isInstanceOf(RequestIdConflictException.class).hasMessageContaining("different body");
        assertThat(stored).isEmpty();
        assertThat(shaper.record("r1").bodyDigest()).isEqualTo(first.bodyDigest()).isNotNull();
    }

    @Test
    void anotherTenantsRequestIdIsAConflictAndNothingIsStored() {
        shaper.enqueue("r1", MODEL, T0 + 60_000);
        stored.clear();

        assertThatThrownBy(() -> service.submit("globex", body("\"requestId\": \"r1\"", 100), T0))
                .isInstanceOf(RequestIdConflictException.class).hasMessageContaining("r1");
        assertThat(stored).isEmpty();
        assertThat(shaper.record("r1").tenant()).isEqualTo(ShaperFixture.TENANT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{", "{\"model\": \"nova-lite\"}", "{\"model\": \"nova-lite\", \"converse\": {\"messages\": "
            + "[{\"role\": \"user\", \"content\": [{\"text\": \"hi\"}]}]}}", "{\"model\": \"nope\", \"converse\": {}}"})
    void invalidInputIsRefusedAndNothingIsStored(String body) {
        assertThatThrownBy(() -> service.submit("acme", body.getBytes(StandardCharsets.UTF_8), T0))
                .isInstanceOf(InvalidSubmissionException.class);
        assertThat(stored).isEmpty();
    }

    @Test
    void anInputOverTheModelsLimitIsRefusedOnTheBodyAndNothingIsStored() {
        String huge = "{\"model\": \"nova-micro\", \"converse\": {\"messages\": [{\"role\": \"user\", \"content\": "
                + "[{\"text\": \"" + "y".repeat(400_004) + "\"}]}], \"inferenceConfig\": {\"maxTokens\": 10}}}";
        SubmissionService big = SubmissionService.builder().catalog(shaper.catalog)
                .parser(SubmissionParser.create(shaper.catalog, CallbackUrlPolicy.strict(), 1024 * 1024))
                .estimator(CharacterTokenEstimator.withMargin(0)).payloads(recordingPayloads)
                .requests(shaper.requests).board(shaper.board).ids(() -> "g").build();

        assertThatThrownBy(() -> big.submit("acme", huge.getBytes(StandardCharsets.UTF_8), T0))
                .isInstanceOfSatisfying(InvalidSubmissionException.class,
                        e -> assertThat(e.field()).isEqualTo("converse"))
                .hasMessageContaining("over the limit of 100000");
        assertThat(stored).isEmpty();
    }

    @Test
    void refusesWithRetryAfterWhenTheBacklogOutlastsTheDeadlineOnEveryModel() {
        // Ten minutes of queued work at 100% drain: a new request would start at T0 + 600 s.
        shaper.board.publish(status(MODEL, T0, 10.0));
        shaper.board.publish(status(FALLBACK, T0, 10.0));

        assertThatThrownBy(() -> service.submit("acme", body("\"deadlineSeconds\": 60", 100), T0))
                .isInstanceOfSatisfying(SubmissionRefusedException.class,
                        e -> assertThat(e.retryAfterSeconds()).isEqualTo(540))
                .hasMessageContaining("cannot start this request within its 60 s deadline")
                .hasMessageContaining("nor can its fallback nova-micro")
                .hasMessageContaining("predicted wait 600 s");
        assertThat(stored).isEmpty();
    }

    @Test
    void acceptsOnlyWhenThePredictedStartIsBeforeTheDeadline() {
        shaper.board.publish(status(MODEL, T0, 10.0));
        shaper.board.publish(status(FALLBACK, T0, 10.0));

        assertThatThrownBy(() -> service.submit("acme", body("\"deadlineSeconds\": 600", 100), T0))
                .isInstanceOfSatisfying(SubmissionRefusedException.class,
                        e -> assertThat(e.retryAfterSeconds()).isEqualTo(1));
        assertThat(service.submit("acme", body("\"deadlineSeconds\": 601", 100), T0).ticket().modelKey())
                .isEqualTo(MODEL);
    }

    @Test
    void routesToTheFallbackWhenOnlyTheFallbackCanStartInTime() {
        shaper.board.publish(status(MODEL, T0, 10.0));
        shaper.board.publish(status(FALLBACK, T0, 0.5));

        Ticket ticket = service.submit("acme", body("\"requestId\": \"r1\", \"deadlineSeconds\": 60", 200), T0)
                .ticket();

        assertThat(ticket.modelKey()).isEqualTo(FALLBACK);
        assertThat(ticket.estimate()).isEqualTo(TokenUsage.of(INPUT_ESTIMATE, 200));
        assertThat(stored).containsExactly("r1");
    }

    @Test
    void doesNotRouteToAFallbackWhoseMaxTokensLimitIsTooLow() {
        shaper.board.publish(status(MODEL, T0, 10.0));

        assertThatThrownBy(() -> service.submit("acme", body("\"deadlineSeconds\": 60", 8_000), T0))
                .isInstanceOf(SubmissionRefusedException.class)
                .hasMessageNotContaining("fallback");
        assertThat(stored).isEmpty();
    }

    @Test
    void aModelWithoutFallbackIsRefusedOnItsOwnBacklog() {
        shaper.board.publish(status(ShaperFixture.PACED, T0, 2.0));
        String body = "{\"model\": \"paced\", \"deadlineSeconds\": 60, \"converse\": " + converse(100) + "}";

        assertThatThrownBy(() -> service.submit("acme", body.getBytes(StandardCharsets.UTF_8), T0))
                .isInstanceOfSatisfying(SubmissionRefusedException.class,
                        e -> assertThat(e.retryAfterSeconds()).isEqualTo(60));
    }

    @Test
    void ignoresAStaleStatus() {
        long published = T0 - StartEstimate.MAX_STATUS_AGE_MILLIS - 1;
        shaper.board.publish(status(MODEL, published, 10.0));

        assertThat(service.submit("acme", body("\"deadlineSeconds\": 60", 100), T0).ticket().modelKey())
                .isEqualTo(MODEL);
    }

    @Test
    void aStatusJustYoungEnoughStillCounts() {
        shaper.board.publish(status(MODEL, T0 - StartEstimate.MAX_STATUS_AGE_MILLIS, 10.0));
        shaper.board.publish(status(FALLBACK, T0 - StartEstimate.MAX_STATUS_AGE_MILLIS, 10.0));

        assertThatThrownBy(() -> service.submit("acme", body("\"deadlineSeconds\": 60", 100), T0))
                .isInstanceOf(SubmissionRefusedException.class);
    }

    private static ModelStatus status(String model, long publishedAt, double interactiveMinutes) {
        return new ModelStatus(model, publishedAt, 100, interactiveMinutes, 0, publishedAt, 1.0, 0, 0, "");
    }

    private static String converse(long maxTokens) {
        return "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"" + PROMPT + "\"}]}], "
                + "\"inferenceConfig\": {\"maxTokens\": " + maxTokens + "}}";
    }

    private static byte[] body(String fields, long maxTokens) {
        String json = "{" + fields + (fields.isEmpty() ? "" : ", ") + "\"model\": \"nova-lite\", \"converse\": "
                + converse(maxTokens) + "}";
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
