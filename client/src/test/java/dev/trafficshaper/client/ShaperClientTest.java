package dev.trafficshaper.client;

import static dev.trafficshaper.client.FakeShaperApi.answer;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ShaperClientTest {

    private static final String STATUS_PATH = "/v1/requests/r-1";
    private static final String SUCCEEDED = """
            {"requestId":"r-1","model":"nova-lite","status":"SUCCEEDED",
             "response":{"output":{"message":{"role":"assistant","content":[{"text":"Hello"},{"text":", world"}]}},
                         "stopReason":"end_turn","usage":{"inputTokens":12,"outputTokens":3,"totalTokens":15}},
             "usage":{"inputTokens":12,"outputTokens":3,"cacheReadTokens":4,"cacheWriteTokens":0},
             "queuedMillis":1200,"someFieldAddedLater":{"x":1}}""";
    private static final String QUEUED = "{\"requestId\":\"r-1\",\"status\":\"QUEUED\"}";

    private FakeShaperApi api;
    private ManualScheduler scheduler;
    private MutableClock clock;
    private ShaperClient client;

    @BeforeEach
    void start() throws IOException {
        api = FakeShaperApi.start();
        scheduler = new ManualScheduler();
        clock = new MutableClock(Instant.parse("2025-06-01T12:00:00Z"));
        client = clientFor(api.baseUri()).build();
    }

    @AfterEach
    void stop() {
        client.close();
        scheduler.shutdownNow();
        api.close();
    }

    private ShaperClient.Builder clientFor(URI baseUri) {
        // jitter pinned at none, so each test can name the exact delays
        return ShaperClient.builder().baseUri(baseUri).scheduler(scheduler).clock(clock).random(() -> 0.0)
                .requestTimeout(ofSeconds(5));
    }

    @Test
    void submitPostsTheSubmissionAsJsonAndReadsTheAcceptance() {
        api.on("POST", "/v1/requests", answer(202,
                "{\"requestId\":\"r-1\",\"status\":\"QUEUED\",\"statusUrl\":\"/v1/requests/r-1\",\"extra\":true}"));

        Submitted submitted = client.submit(Submission.text("nova-lite", "Hi", 64).toBuilder()
                .requestId("r-1").priority(Priority.BULK).deadlineSeconds(600).build());

        assertThat(submitted.requestId()).isEqualTo("r-1");
        assertThat(submitted.status()).isEqualTo("QUEUED");
        assertThat(submitted.httpStatus()).isEqualTo(202);
        assertThat(submitted.statusUrl()).contains(URI.create("/v1/requests/r-1"));
        assertThat(submitted.json().path("extra").asBoolean()).isTrue();
        FakeShaperApi.Exchange post = api.exchanges("POST", "/v1/requests").get(0);
        assertThat(post.header("Content-Type")).isEqualTo("application/json");
        assertThat(post.header("Accept")).isEqualTo("application/json");
        assertThat(post.bodyText()).isEqualTo("{\"requestId\":\"r-1\",\"model\":\"nova-lite\",\"priority\":\"bulk\","
                + "\"deadlineSeconds\":600,\"converse\":{\"messages\":[{\"role\":\"user\","
                + "\"content\":[{\"text\":\"Hi\"}]}],"
                + "\"inferenceConfig\":{\"maxTokens\":64}}}");
    }

    @Test
    void resubmittingAnIdThatAlreadyFinishedIsAccepted() {
        api.on("POST", "/v1/requests", answer(200, "{\"requestId\":\"r-1\",\"status\":\"SUCCEEDED\"}"));

        Submitted submitted = client.submit(
                Submission.text("nova-lite", "Hi", 64).toBuilder().requestId("r-1").build());

        assertThat(submitted.httpStatus()).isEqualTo(200);
        assertThat(submitted.status()).isEqualTo("SUCCEEDED");
    }

    @Test
    void aRejectedSubmissionCarriesTheErrorAndTheField() {
        api.on("POST", "/v1/requests",
                answer(400, "{\"error\":\"deadlineSeconds exceeds the model's maximum of 3600\","
                        + "\"field\":\"deadlineSeconds\"}"));

        assertThatThrownBy(() -> client.submit(Submission.text("nova-lite", "Hi", 64)))
                .isInstanceOfSatisfying(SubmissionRejectedException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.error()).isEqualTo("deadlineSeconds exceeds the model's maximum of 3600");
                    assertThat(e.field()).contains("deadlineSeconds");
                    assertThat(e.isRetryable()).isFalse();
                    assertThat(e.getMessage()).contains("deadlineSeconds");
                });
    }

    @Test
    void anIdTakenByADifferentRequestIsRejectedWithTheField() {
        api.on("POST", "/v1/requests",
                answer(409, "{\"error\":\"requestId r-1 belongs to a different request\",\"field\":\"requestId\"}"));

        assertThatThrownBy(() -> client.submit(Submission.text("nova-lite", "Hi", 64).toBuilder().requestId("r-1")
                .build()))
                .isInstanceOfSatisfying(SubmissionRejectedException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(409);
                    assertThat(e.field()).contains("requestId");
                    assertThat(e.isRetryable()).isFalse();
                });
    }

    @Test
    void aSubmissionThatCannotMeetItsDeadlineIsRejectedWithRetryAfter() {
        api.on("POST", "/v1/requests",
                answer(429, "{\"error\":\"predicted start is after the deadline\"}", "Retry-After", "40"));

        assertThatThrownBy(() -> client.submit(Submission.text("nova-lite", "Hi", 64)))
                .isInstanceOfSatisfying(SubmissionRejectedException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(429);
                    assertThat(e.isRetryable()).isTrue();
                    assertThat(e.retryAfter()).contains(ofSeconds(40));
                    assertThat(e.error()).isEqualTo("predicted start is after the deadline");
                });
    }

    @Test
    void aRejectionWithoutFieldOrErrorStillMapsToSubmissionRejected() {
        api.on("POST", "/v1/requests", answer(400, "{\"message\":\"Invalid request body\"}"));

        assertThatThrownBy(() -> client.submit(Submission.text("nova-lite", "Hi", 64)))
                .isInstanceOfSatisfying(SubmissionRejectedException.class, e -> {
                    assertThat(e.error()).isEqualTo("Invalid request body");
                    assertThat(e.field()).isEmpty();
                });
    }

    @Test
    void aSubmitAnswerOutsideTheContractIsAnUnexpectedResponse() {
        api.on("POST", "/v1/requests", answer(403, "{\"message\":\"Missing Authentication Token\"}"));

        assertThatThrownBy(() -> client.submit(Submission.text("nova-lite", "Hi", 64)))
                .isInstanceOfSatisfying(UnexpectedResponseException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(403);
                    assertThat(e.isRetryable()).isFalse();
                    assertThat(e.body()).contains("Missing Authentication Token");
                });
    }

    @Test
    void submitAsyncFailsItsFutureWithTheRejection() {
        api.on("POST", "/v1/requests", answer(400, "{\"error\":\"unknown model\",\"field\":\"model\"}"));

        CompletableFuture<Submitted> future = client.submitAsync(Submission.text("nope", "Hi", 64));

        assertThatThrownBy(() -> future.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(SubmissionRejectedException.class);
    }

    @Test
    void statusReadsPendingWithItsRetryAfter() {
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "3"));

        RequestStatus status = client.status("r-1");

        assertThat(status.isPending()).isTrue();
        assertThat(status.isTerminal()).isFalse();
        assertThat(status.status()).isEqualTo("QUEUED");
        assertThat(status.httpStatus()).isEqualTo(202);
        assertThat(status.retryAfter()).contains(ofSeconds(3));
    }

    @Test
    void statusReadsASuccessWithResponseUsageAndTheRawBody() {
        api.on("GET", STATUS_PATH, answer(200, SUCCEEDED));

        RequestStatus status = client.status("r-1");

        assertThat(status.isSucceeded()).isTrue();
        assertThat(status.outcome()).isEqualTo(RequestStatus.Outcome.SUCCEEDED);
        assertThat(status.outputText()).contains("Hello, world");
        assertThat(status.usage()).contains(new Usage(12, 3, 15, 4, 0));
        assertThat(status.response().map(r -> r.path("stopReason").asText())).contains("end_turn");
        assertThat(status.json().path("someFieldAddedLater").path("x").asInt()).isEqualTo(1);
        assertThat(status.rawBody()).isEqualTo(SUCCEEDED);
        assertThat(status.retryAfter()).isEmpty();
    }

    @Test
    void finalFailuresAreStatusesWithTheirHttpStatusAndReason() {
        api.on("GET", STATUS_PATH,
                answer(429, "{\"requestId\":\"r-1\",\"status\":\"FAILED\",\"reason\":\"THROTTLED\","
                        + "\"detail\":\"cannot meet the deadline\"}"),
                answer(504, "{\"requestId\":\"r-1\",\"status\":\"EXPIRED\",\"reason\":\"DEADLINE_EXPIRED\"}"),
                answer(503, "{\"requestId\":\"r-1\",\"status\":\"FAILED\",\"reason\":\"DEPENDENCY_ERROR\"}"),
                answer(400, "{\"requestId\":\"r-1\",\"status\":\"REJECTED\",\"reason\":\"INVALID_REQUEST\"}"),
                answer(404, "{\"error\":\"no request with id 'r-1'\"}"));

        RequestStatus throttled = client.status("r-1");
        assertThat(throttled.isFailed()).isTrue();
        assertThat(throttled.httpStatus()).isEqualTo(429);
        assertThat(throttled.reason()).contains("THROTTLED");
        assertThat(throttled.detail()).contains("cannot meet the deadline");
        assertThat(client.status("r-1").status()).isEqualTo("EXPIRED");
        assertThat(client.status("r-1").httpStatus()).isEqualTo(503);
        assertThat(client.status("r-1").status()).isEqualTo("REJECTED");
        RequestStatus unknown = client.status("r-1");
        assertThat(unknown.isFailed()).isTrue();
        assertThat(unknown.httpStatus()).isEqualTo(404);
        assertThat(unknown.status()).isEqualTo(RequestStatus.NOT_FOUND);
        assertThat(unknown.reason()).contains("no request with id 'r-1'");
    }

    @Test
    void aGatewayThrottleWithoutARequestStateIsARetryableUnexpectedResponse() {
        api.on("GET", STATUS_PATH, answer(429, "{\"message\":\"Too Many Requests\"}"));

        assertThatThrownBy(() -> client.status("r-1"))
                .isInstanceOfSatisfying(UnexpectedResponseException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(429);
                    assertThat(e.isRetryable()).isTrue();
                });
    }

    @Test
    void anIdIsEncodedAsOnePathSegment() {
        api.on("GET", "/v1/requests/a%20b%2Fc", answer(202, QUEUED));

        assertThat(client.status("a b/c").isPending()).isTrue();
    }

    @Test
    void aStageBaseUriKeepsItsPath() {
        api.on("GET", "/prod/v1/requests/r-1", answer(202, QUEUED));

        try (ShaperClient staged = clientFor(URI.create(api.baseUri() + "prod")).build()) {
            assertThat(staged.status("r-1").isPending()).isTrue();
            assertThat(staged.baseUri().getPath()).isEqualTo("/prod/");
        }
    }

    @Test
    void awaitWaitsWhatRetryAfterSaysBetweenPolls() throws Exception {
        api.on("GET", STATUS_PATH,
                answer(202, QUEUED, "Retry-After", "1"),
                answer(202, "{\"requestId\":\"r-1\",\"status\":\"INVOKING\"}", "Retry-After", "1"),
                answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(result.get().outputText()).contains("Hello, world");
        assertThat(scheduler.delays()).containsExactly(ofSeconds(1), ofSeconds(1));
        assertThat(api.exchanges("GET", STATUS_PATH)).hasSize(3);
    }

    @Test
    void awaitCapsALongRetryAfterAndUsesThePollIntervalWhenThereIsNone() throws Exception {
        client = clientFor(api.baseUri()).pollInterval(ofSeconds(3)).maxPollInterval(ofSeconds(20)).build();
        api.on("GET", STATUS_PATH,
                answer(202, QUEUED, "Retry-After", "120"),
                answer(202, QUEUED),
                answer(202, QUEUED, "Retry-After", "0"),
                answer(202, QUEUED, "Retry-After", "Sun, 01 Jun 2025 12:00:07 GMT"),
                answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        // Retry-After: 0 right after an answer without one is the second "not yet" in a row: doubled from 100 ms
        assertThat(scheduler.delays())
                .containsExactly(ofSeconds(20), ofSeconds(3), Duration.ofMillis(200), ofSeconds(7));
    }

    @Test
    void aRetryAfterOfOneSecondHeardAgainInTheSameStateBacksOffToTheCap() throws Exception {
        FakeShaperApi.Answer stillQueued = answer(202, QUEUED, "Retry-After", "1");
        api.on("GET", STATUS_PATH, stillQueued, stillQueued, stillQueued, stillQueued, stillQueued, stillQueued,
                stillQueued, answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(scheduler.delays()).containsExactly(ofSeconds(1), ofSeconds(2), ofSeconds(4), ofSeconds(8),
                ofSeconds(16), ShaperClient.DEFAULT_MAX_BACKOFF, ShaperClient.DEFAULT_MAX_BACKOFF);
    }

    @Test
    void aNewStateRestartsTheBackoffAndAnInformativeRetryAfterIsFollowedAsIs() throws Exception {
        String invoking = "{\"requestId\":\"r-1\",\"status\":\"INVOKING\"}";
        api.on("GET", STATUS_PATH,
                answer(202, QUEUED, "Retry-After", "1"),
                answer(202, QUEUED, "Retry-After", "1"),
                answer(202, QUEUED, "Retry-After", "40"),
                answer(202, QUEUED, "Retry-After", "1"),
                answer(202, invoking, "Retry-After", "1"),
                answer(202, invoking, "Retry-After", "1"),
                answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(scheduler.delays()).containsExactly(ofSeconds(1), ofSeconds(2), ofSeconds(40), ofSeconds(1),
                ofSeconds(1), ofSeconds(2));
    }

    @Test
    void jitterShortensOnlyTheBackedOffPartSoNoWaitUndercutsRetryAfter() throws Exception {
        client = clientFor(api.baseUri()).random(() -> 0.5).build();
        FakeShaperApi.Answer stillQueued = answer(202, QUEUED, "Retry-After", "1");
        api.on("GET", STATUS_PATH, stillQueued, stillQueued, stillQueued, answer(202, QUEUED, "Retry-After", "9"),
                answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        // 1 s + (2 s - 1 s) x 0.9, 1 s + (4 s - 1 s) x 0.9; the API's own 9 s is not jittered
        assertThat(scheduler.delays()).containsExactly(ofSeconds(1), Duration.ofMillis(1_900),
                Duration.ofMillis(3_700), ofSeconds(9));
    }

    @Test
    void aPushedOutcomeCompletesTheAwaitWhilePollingWaitsAtLeastTheEta() throws Exception {
        OutcomeInbox inbox = OutcomeInbox.create();
        client = clientFor(api.baseUri()).outcomes(inbox).build();
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "240"));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        ManualScheduler.Task fallbackPoll = scheduler.nextTask();
        assertThat(inbox.deliverWebhook(SUCCEEDED)).isTrue();
        fallbackPoll.run();

        assertThat(result.get(5, TimeUnit.SECONDS).outputText()).contains("Hello, world");
        assertThat(scheduler.delays()).containsExactly(ofSeconds(240));
        assertThat(api.exchanges("GET", STATUS_PATH)).hasSize(1);
        assertThat(inbox.waitingCount()).isZero();
    }

    @Test
    void withAPushConfiguredPollingIsASlowFallbackThatBacksOffWhateverRetryAfterSays() throws Exception {
        client = clientFor(api.baseUri()).outcomes(OutcomeInbox.create()).build();
        String invoking = "{\"requestId\":\"r-1\",\"status\":\"INVOKING\"}";
        api.on("GET", STATUS_PATH,
                answer(202, QUEUED, "Retry-After", "1"),
                answer(202, QUEUED, "Retry-After", "45"),
                answer(202, invoking, "Retry-After", "1"),
                answer(202, invoking, "Retry-After", "2"),
                answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(scheduler.delays()).containsExactly(ofSeconds(30), ofSeconds(60), ofSeconds(120),
                ofSeconds(240));
    }

    @Test
    void anOutcomeEventOfASuccessIsFollowedByOneReadForTheResponse() throws Exception {
        OutcomeInbox inbox = OutcomeInbox.create();
        client = clientFor(api.baseUri()).outcomes(inbox).build();
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "240"), answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.nextTask();
        inbox.deliverEvent("{\"source\":\"traffic-shaper\",\"detail\":{\"requestId\":\"r-1\","
                + "\"status\":\"SUCCEEDED\",\"httpStatus\":200,\"statusUrl\":\"/v1/requests/r-1\"}}");

        assertThat(result.get(5, TimeUnit.SECONDS).outputText()).contains("Hello, world");
        assertThat(api.exchanges("GET", STATUS_PATH)).hasSize(2);
    }

    @Test
    void aFailureEventEndsTheAwaitWithoutAnotherRead() throws Exception {
        OutcomeInbox inbox = OutcomeInbox.create();
        client = clientFor(api.baseUri()).outcomes(inbox).build();
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "240"));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.nextTask();
        inbox.deliverEvent("{\"requestId\":\"r-1\",\"status\":\"EXPIRED\",\"reason\":\"DEADLINE_EXPIRED\","
                + "\"httpStatus\":504}");

        assertThat(result.get(5, TimeUnit.SECONDS).httpStatus()).isEqualTo(504);
        assertThat(api.exchanges("GET", STATUS_PATH)).hasSize(1);
    }

    @Test
    void anOutcomePushedBeforeTheAwaitCompletesItWithoutAnyRead() throws Exception {
        OutcomeInbox inbox = OutcomeInbox.create();
        client = clientFor(api.baseUri()).outcomes(inbox).build();
        assertThat(inbox.deliverWebhook(SUCCEEDED)).isFalse();

        CompletableFuture<RequestStatus> result = client.await("r-1");

        assertThat(result).isCompleted();
        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(api.exchanges()).isEmpty();
    }

    @Test
    void aCancelledAwaitLeavesNothingWaitingInTheInbox() throws Exception {
        OutcomeInbox inbox = OutcomeInbox.create();
        client = clientFor(api.baseUri()).outcomes(inbox).build();
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "5"));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.nextTask();
        assertThat(inbox.waitingCount()).isEqualTo(1);
        result.cancel(false);

        assertThat(inbox.waitingCount()).isZero();
        assertThat(inbox.deliverWebhook(SUCCEEDED)).isFalse();
    }

    @Test
    void awaitingA250SecondWaitFollowsTheEtaInAFewReads() throws Exception {
        client = clientFor(api.baseUri()).build();
        // what StatusService answers for a request queued 240 s behind others, then invoking for 10 s
        api.on("GET", STATUS_PATH,
                answer(202, QUEUED, "Retry-After", "240"),
                answer(202, "{\"requestId\":\"r-1\",\"status\":\"INVOKING\"}", "Retry-After", "3"),
                answer(202, "{\"requestId\":\"r-1\",\"status\":\"INVOKING\"}", "Retry-After", "6"),
                answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(scheduler.delays()).containsExactly(ofSeconds(240), ofSeconds(3), ofSeconds(6));
        assertThat(api.exchanges("GET", STATUS_PATH)).hasSizeLessThanOrEqualTo(5);
    }

    @Test
    void aFinalFailureCompletesTheAwaitNormally() throws Exception {
        api.on("GET", STATUS_PATH,
                answer(202, QUEUED, "Retry-After", "1"),
                answer(504, "{\"requestId\":\"r-1\",\"status\":\"EXPIRED\",\"reason\":\"DEADLINE_EXPIRED\"}"));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result).isCompleted();
        assertThat(result.get().isFailed()).isTrue();
        assertThat(result.get().httpStatus()).isEqualTo(504);
    }

    @Test
    void awaitRidesOutGatewayErrorsWithBackoff() throws Exception {
        api.on("GET", STATUS_PATH,
                answer(502, "{\"message\":\"Internal server error\"}"),
                answer(429, "{\"message\":\"Too Many Requests\"}"),
                answer(503, "{\"message\":\"Service Unavailable\"}", "Retry-After", "7"),
                answer(202, QUEUED),
                answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(scheduler.delays()).containsExactly(ofSeconds(2), ofSeconds(4), ofSeconds(7), ofSeconds(2));
    }

    @Test
    void awaitGivesUpAfterTooManyUnreadablePollsInARow() throws Exception {
        client = clientFor(api.baseUri()).maxTransientFailures(2).build();
        api.on("GET", STATUS_PATH,
                answer(502, "{\"message\":\"Internal server error\"}"),
                answer(502, "{\"message\":\"Internal server error\"}"),
                answer(502, "{\"message\":\"Internal server error\"}"));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThatThrownBy(result::get).cause()
                .isInstanceOf(ShaperException.class)
                .hasMessageContaining("3 times in a row")
                .cause().isInstanceOf(UnexpectedResponseException.class);
        assertThat(scheduler.delays()).containsExactly(ofSeconds(2), ofSeconds(4));
    }

    @Test
    void awaitFailsOnTransportErrorsItCannotRecoverFrom() throws Exception {
        URI closedPort = api.baseUri();
        api.close();
        client = clientFor(closedPort).maxTransientFailures(1).build();

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThatThrownBy(result::get).cause()
                .isInstanceOf(ShaperException.class)
                .cause().isInstanceOf(ConnectException.class);
        assertThat(scheduler.delays()).containsExactly(ofSeconds(2));
    }

    @Test
    void awaitFailsAtOnceOnAnAnswerThatWillNotChange() throws Exception {
        api.on("GET", STATUS_PATH, answer(403, "{\"message\":\"not authorized\"}"));

        CompletableFuture<RequestStatus> result = client.await("r-1");

        assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOfSatisfying(UnexpectedResponseException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(403));
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void aNotFoundSoonAfterTheAwaitStartsIsPolledAgain() throws Exception {
        api.on("GET", STATUS_PATH, answer(404, "{\"error\":\"no such request\"}"), answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.runUntilDone(result);

        assertThat(result.get().isSucceeded()).isTrue();
        assertThat(scheduler.delays()).containsExactly(ofSeconds(2));
    }

    @Test
    void aNotFoundAfterTheGraceIsFinal() throws Exception {
        api.on("GET", STATUS_PATH, answer(404, "{\"error\":\"no such request\"}"),
                answer(404, "{\"error\":\"no such request\"}"));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        ManualScheduler.Task second = scheduler.nextTask();
        clock.advance(ShaperClient.DEFAULT_NOT_FOUND_GRACE);
        second.run();

        assertThat(result.get(5, TimeUnit.SECONDS).httpStatus()).isEqualTo(404);
        assertThat(result.get().status()).isEqualTo(RequestStatus.NOT_FOUND);
    }

    @Test
    void awaitTimesOutAndStopsPolling() throws Exception {
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "5"));

        CompletableFuture<RequestStatus> result = client.await("r-1", ofSeconds(60));
        ManualScheduler.Task timeout = scheduler.nextTask();
        ManualScheduler.Task nextPoll = scheduler.nextTask();
        timeout.run();
        nextPoll.run();

        assertThatThrownBy(result::get).cause().isInstanceOf(TimeoutException.class);
        assertThat(scheduler.delays()).containsExactly(ofSeconds(60), ofSeconds(5));
        assertThat(api.exchanges("GET", STATUS_PATH)).hasSize(1);
    }

    @Test
    void cancellingTheAwaitStopsPolling() throws Exception {
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "5"));

        CompletableFuture<RequestStatus> result = client.await("r-1");
        ManualScheduler.Task nextPoll = scheduler.nextTask();
        result.cancel(false);
        nextPoll.run();

        assertThat(api.exchanges("GET", STATUS_PATH)).hasSize(1);
    }

    @Test
    void closingTheClientFailsTheAwaitsStillRunning() throws Exception {
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "5"));
        CompletableFuture<RequestStatus> result = client.await("r-1");
        scheduler.nextTask();

        client.close();

        assertThatThrownBy(result::get).cause().isInstanceOf(ShaperException.class).hasMessageContaining("closed");
        assertThat(client.await("r-2")).isCompletedExceptionally();
        assertThatThrownBy(() -> client.status("r-2")).isInstanceOf(ShaperException.class);
    }

    @Test
    void submitAndAwaitSubmitsThenPollsTheReturnedId() throws Exception {
        api.on("POST", "/v1/requests", answer(202, "{\"requestId\":\"r-1\",\"status\":\"QUEUED\"}"));
        api.on("GET", STATUS_PATH, answer(202, QUEUED, "Retry-After", "1"), answer(200, SUCCEEDED));

        CompletableFuture<RequestStatus> result = client.submitAndAwait(Submission.text("nova-lite", "Hi", 64));
        scheduler.runUntilDone(result);

        assertThat(result.get().outputText()).contains("Hello, world");
        assertThat(api.exchanges()).extracting(FakeShaperApi.Exchange::method)
                .containsExactly("POST", "GET", "GET");
    }

    @Test
    void submitAndAwaitFailsWithTheRejection() {
        api.on("POST", "/v1/requests", answer(400, "{\"error\":\"unknown model\",\"field\":\"model\"}"));

        CompletableFuture<RequestStatus> result = client.submitAndAwait(Submission.text("nope", "Hi", 64));

        assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(SubmissionRejectedException.class);
    }

    @Test
    void modelsGivesATypedViewAndKeepsTheRawJson() {
        api.on("GET", "/v1/models", answer(200, """
                {"models":[
                  {"key":"nova-lite","modelId":"amazon.nova-lite-v1:0",
                   "quota":{"tpm":4000000,"rpm":2000,"outputBurndown":1},
                   "targetUtilization":0.97,"queueDepth":12,"etaSeconds":4.5,"fallback":"nova-micro"},
                  {"key":"claude","quota":{"inputTpm":1000000,"outputTpm":200000}},
                  {"modelId":"entry without a key"}
                ],"generatedAt":"2025-06-01T12:00:00Z"}"""));

        Models models = client.models();

        assertThat(models.models()).extracting(ModelInfo::key).containsExactly("nova-lite", "claude");
        ModelInfo nova = models.model("nova-lite").orElseThrow();
        assertThat(nova.modelId()).contains("amazon.nova-lite-v1:0");
        assertThat(nova.quotaValue("tpm")).hasValue(4_000_000);
        assertThat(nova.quotaValue("inputTpm")).isEmpty();
        assertThat(nova.targetUtilization()).hasValue(0.97);
        assertThat(nova.queueDepth()).hasValue(12);
        assertThat(nova.etaSeconds()).hasValue(4.5);
        assertThat(nova.json().path("fallback").asText()).isEqualTo("nova-micro");
        ModelInfo claude = models.model("claude").orElseThrow();
        assertThat(claude.modelId()).isEmpty();
        assertThat(claude.queueDepth()).isEmpty();
        assertThat(claude.quotaValue("outputTpm")).hasValue(200_000);
        JsonNode raw = models.json();
        assertThat(raw.path("generatedAt").asText()).isEqualTo("2025-06-01T12:00:00Z");
    }

    @Test
    void aBaseUriMustBeAnAbsoluteHttpUrl() {
        assertThatThrownBy(() -> ShaperClient.builder().baseUri("localhost:8080").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShaperClient.builder().baseUri("ftp://example.com/").build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShaperClient.builder().build()).isInstanceOf(NullPointerException.class);
    }
}
