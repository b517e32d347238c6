package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The local server's routes, methods and status codes over real HTTP, with a scripted model. */
class LocalServerRoutesIT {

    private static final String MODELS = """
            {"models": {
              "small": {"modelId": "test.small-v1:0", "quotas": {"tpm": 1000000}, "maxTokens": 1000,
                        "defaultDeadlineSeconds": 60},
              "other": {"modelId": "test.other-v1:0", "quotas": {"tpm": 50000, "rpm": 100, "outputBurndown": 5}}
            }}""";

    @RegisterExtension
    final ScriptedServer local = ScriptedServer.of(MODELS);

    @Test
    void listensOnLoopback() {
        assertThat(local.server().baseUri().getHost()).isEqualTo("127.0.0.1");
        assertThat(local.server().baseUri().getPort()).isPositive();
    }

    @Test
    void modelsListsEveryModelWithItsQuotaAndQueue() {
        Api.Answer answer = local.api().get("/v1/models");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        JsonNode models = answer.json().path("models");
        assertThat(models).extracting(node -> node.path("key").asText()).containsExactly("other", "small");
        JsonNode other = models.get(0);
        assertThat(other.path("modelId").asText()).isEqualTo("test.other-v1:0");
        assertThat(other.path("quota").path("tpm").asLong()).isEqualTo(50_000);
        assertThat(other.path("quota").path("rpm").asLong()).isEqualTo(100);
        assertThat(other.path("quota").path("outputBurndown").asInt()).isEqualTo(5);
        assertThat(other.path("targetUtilization").asDouble()).isEqualTo(0.95);
        assertThat(other.path("queueDepth").asLong()).isZero();
        assertThat(other.has("etaSeconds")).isTrue();
    }

    @Test
    void pendingRequestAnswers202WithRetryAfterThenItsResult() {
        Api.Answer submitted = local.api().submit(Api.body("small", "", "hold on", 100));
        String id = submitted.json().path("requestId").asText();

        Api.Answer pending = local.api().status(id, null);

        assertThat(submitted.status()).isEqualTo(202);
        assertThat(id).isNotBlank();
        assertThat(submitted.json().path("statusUrl").asText())
                .isEqualTo(local.server().baseUri() + "/v1/requests/" + id);
        assertThat(pending.status()).isEqualTo(202);
        assertThat(pending.header("Retry-After")).matches("[1-9][0-9]*");
        assertThat(pending.json().path("status").asText()).isIn("QUEUED", "ADMITTED", "INVOKING");

        local.model().release();
        Api.Answer done = awaitTerminal(id);

        assertThat(done.status()).isEqualTo(200);
        assertThat(done.header("Retry-After")).isNull();
        assertThat(done.json().path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(done.json().path("usage").path("outputTokens").asLong()).isEqualTo(5);
        assertThat(done.json().path("response").path("output").path("message").path("content").get(0)
                .path("text").asText()).isEqualTo("fine, thanks");
    }

    @ParameterizedTest(name = "{0} -> {1} {2}")
    @CsvSource({
            "fail:validation, 400, INVALID_REQUEST",
            "fail:denied, 503, DEPENDENCY_ERROR",
            "fail:throttle, 504, DEADLINE_EXPIRED",
            "fail:late, 504, MODEL_TIMEOUT"})
    void terminalFailureAnswersWithItsStatus(String prompt, int status, String reason) {
        // A throttle sends the request back to the queue until its deadline, however often.
        String deadline = prompt.equals("fail:late") || prompt.equals("fail:throttle") ? "\"deadlineSeconds\":1," : "";
        String id = local.api().submit(Api.body("small", deadline, prompt, 100)).json().path("requestId").asText();

        Api.Answer done = awaitTerminal(id);

        assertThat(done.status()).as(done.raw().body()).isEqualTo(status);
        assertThat(done.header("Content-Type")).isEqualTo("application/json");
        assertThat(done.json().path("reason").asText()).isEqualTo(reason);
        assertThat(done.json().path("httpStatus").asInt()).isEqualTo(status);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
            "GET, /v1/requests, 405, POST",
            "PUT, /v1/requests, 405, POST",
            "POST, /v1/models, 405, GET",
            "DELETE, /v1/requests/some-id, 405, GET",
            "GET, /, 404, ",
            "GET, /v1, 404, ",
            "GET, /v1/requests/, 404, ",
            "GET, /v1/requests/a/b, 404, ",
            "GET, /v2/models, 404, "})
    void otherPathsAndMethodsAreRefusedInJson(String method, String path, int status, String allow) {
        Api.Answer answer = local.api().send(local.api().request(path, null)
                .method(method, HttpRequest.BodyPublishers.ofString(method.equals("GET") ? "" : "{}")).build());

        assertThat(answer.status()).isEqualTo(status);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        assertThat(answer.json().path("error").asText()).isNotBlank();
        assertThat(answer.header("Allow")).isEqualTo(allow);
    }

    private Api.Answer awaitTerminal(String requestId) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> local.api().status(requestId, null), answer -> answer.status() != 202);
    }
}
