package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code POST /v1/requests} refuses bad input with {@code 400 {"error", "field"}} and stores
 * nothing; ids are idempotent and private to their tenant. Over real HTTP, with the runtime in
 * strict-callback mode (as deployed) and a scripted model instead of Bedrock.
 */
class LocalServerValidationIT {

    private static final String MODELS = """
            {"models": {"small": {"modelId": "test.small-v1:0", "quotas": {"tpm": 1000000}, "maxTokens": 1000}}}""";

    @RegisterExtension
    final ScriptedServer local = ScriptedServer.strict(MODELS);

    static Stream<Arguments> invalidSubmissions() {
        String converse = "\"converse\":{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"hi\"}]}],"
                + "\"inferenceConfig\":{\"maxTokens\":100}}";
        return Stream.of(
                arguments("malformed JSON", "{\"requestId\":\"v-json\",\"model\":\"small\",", "", "v-json"),
                arguments("not an object", "[\"v-array\"]", "", "v-array"),
                arguments("unknown model", Api.body("large", "\"requestId\":\"v-model\",", "hi", 100), "model",
                        "v-model"),
                arguments("missing model", "{\"requestId\":\"v-nomodel\"," + converse + "}", "model", "v-nomodel"),
                arguments("missing maxTokens", "{\"requestId\":\"v-nomax\",\"model\":\"small\",\"converse\":"
                        + "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"hi\"}]}]}}",
                        "converse.inferenceConfig.maxTokens", "v-nomax"),
                arguments("negative maxTokens", Api.body("small", "\"requestId\":\"v-negmax\",", "hi", -5),
                        "converse.inferenceConfig.maxTokens", "v-negmax"),
                arguments("maxTokens over the model's limit", Api.body("small", "\"requestId\":\"v-bigmax\",", "hi",
                        1001), "converse.inferenceConfig.maxTokens", "v-bigmax"),
                arguments("empty messages", "{\"requestId\":\"v-nomsg\",\"model\":\"small\",\"converse\":"
                        + "{\"messages\":[],\"inferenceConfig\":{\"maxTokens\":100}}}", "converse.messages", "v-nomsg"),
                arguments("unknown field", "{\"requestId\":\"v-field\",\"model\":\"small\",\"deadline\":30,"
                        + converse + "}", "deadline", "v-field"),
                arguments("deadline over the maximum", "{\"requestId\":\"v-deadline\",\"model\":\"small\","
                        + "\"deadlineSeconds\":999999," + converse + "}", "deadlineSeconds", "v-deadline"),
                arguments("unknown priority", "{\"requestId\":\"v-prio\",\"model\":\"small\",\"priority\":\"urgent\","
                        + converse + "}", "priority", "v-prio"),
                arguments("http callback", callback("v-http", "http://hooks.example.com/done", converse),
                        "callbackUrl", "v-http"),
                arguments("private callback", callback("v-private", "https://10.1.2.3/done", converse),
                        "callbackUrl", "v-private"),
                arguments("private callback 192.168", callback("v-private2", "https://192.168.0.10/done", converse),
                        "callbackUrl", "v-private2"),
                arguments("loopback callback", callback("v-loop", "https://127.0.0.1:8443/done", converse),
                        "callbackUrl", "v-loop"),
                arguments("localhost callback", callback("v-localhost", "https://localhost/done", converse),
                        "callbackUrl", "v-localhost"),
                arguments("IPv6 loopback callback", callback("v-loop6", "https://[::1]/done", converse),
                        "callbackUrl", "v-loop6"),
                arguments("link-local callback (instance metadata)",
                        callback("v-metadata", "https://169.254.169.254/latest/meta-data/", converse),
                        "callbackUrl", "v-metadata"),
                arguments("invalid requestId", Api.body("small", "\"requestId\":\"a#b\",", "hi", 100), "requestId",
                        "a%23b"));
    }

    private static String callback(String requestId, String url, String converse) {
        return "{\"requestId\":\"" + requestId + "\",\"model\":\"small\",\"callbackUrl\":\"" + url + "\"," + converse
                + "}";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidSubmissions")
    void invalidSubmissionIsRefusedNamingItsFieldAndNothingIsStored(String name, String body, String field,
                                                                    String requestId) {
        Api.Answer answer = local.api().submit(body);

        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(400);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        assertThat(answer.json().path("error").asText()).isNotBlank();
        assertThat(answer.json().path("field").isTextual()).as(answer.raw().body()).isTrue();
        assertThat(answer.json().path("field").asText()).isEqualTo(field);
        assertNothingStored(requestId);
    }

    @Test
    void hugeDeclaredBodyIsRefusedWithoutWaitingForIt() throws IOException {
        long declared = LocalServer.DISCARD_MAX_BYTES + 1;
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), local.server().baseUri().getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/requests HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + declared + "\r\n\r\n{\"requestId\":\"v-declared\",").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // Only the first bytes are sent: the answer must come without the server waiting for the rest.
            String response = RawResponse.read(socket.getInputStream()).text();

            assertThat(response).startsWith("HTTP/1.1 400");
            assertThat(response).containsIgnoringCase("content-type: application/json");
            assertThat(response).contains("\"field\":\"\"").contains("request body is " + declared + " bytes")
                    .contains("over the limit of " + local.runtime().maxBodyBytes());
        }
        assertNothingStored("v-declared");
    }

    @Test
    void bodyOverTheLimitIsRefused() {
        byte[] body = oversizeBody("v-oversize");

        Api.Answer answer = local.api().send(local.api().request("/v1/requests", null)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.json().path("field").asText()).isEmpty();
        assertThat(answer.json().path("error").asText())
                .contains("over the limit of " + local.runtime().maxBodyBytes());
        assertNothingStored("v-oversize");
    }

    @Test
    void chunkedBodyOverTheLimitIsRefusedAtTheLimit() {
        byte[] body = oversizeBody("v-chunked");

        Api.Answer answer = local.api().send(local.api().request("/v1/requests", null)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build());

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.json().path("error").asText())
                .contains("over the limit of " + local.runtime().maxBodyBytes());
        assertNothingStored("v-chunked");
    }

    /** A valid submission padded with spaces to one byte over the limit. */
    private byte[] oversizeBody(String requestId) {
        byte[] valid = Api.body("small", "\"requestId\":\"" + requestId + "\",", "hi", 100)
                .getBytes(StandardCharsets.UTF_8);
        byte[] body = Arrays.copyOf(valid, local.runtime().maxBodyBytes() + 1);
        Arrays.fill(body, valid.length, body.length, (byte) ' ');
        return body;
    }

    @Test
    void repeatedRequestIdWithTheSameBodyReturnsTheFirstRequest() {
        String body = Api.body("small", "\"requestId\":\"same-1\",\"priority\":\"bulk\",", "hold first", 100);
        Api.Answer first = local.api().submit(body);
        Api.Answer again = local.api().submit(body.replace(",", ", "));

        assertThat(first.status()).isEqualTo(202);
        assertThat(first.json().path("requestId").asText()).isEqualTo("same-1");
        assertThat(first.json().path("status").asText()).isEqualTo("QUEUED");
        assertThat(first.json().path("statusUrl").asText()).isEqualTo(local.server().baseUri() + "/v1/requests/same-1");
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.json().path("requestId").asText()).isEqualTo("same-1");
        assertThat(again.json().path("statusUrl").asText()).isEqualTo(first.json().path("statusUrl").asText());
        assertThat(local.api().status("same-1", null).json().path("priority").asText()).isEqualTo("bulk");

        local.model().release();
        JsonNode done = awaitTerminal("same-1", null);
        Api.Answer afterwards = local.api().submit(body);

        assertThat(done.path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(afterwards.status()).isEqualTo(202);
        assertThat(afterwards.json().path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(local.model().calls()).hasSize(1);
        assertThat(local.model().calls().get(0)).contains("hold first");
    }

    @Test
    void repeatedRequestIdWithAnotherBodyIsAConflictAndChangesNothing() {
        local.api().submit(Api.body("small", "\"requestId\":\"same-2\",", "hold first", 100));

        Api.Answer other = local.api().submit(Api.body("small", "\"requestId\":\"same-2\",", "something else", 100));

        assertThat(other.status()).as(other.raw().body()).isEqualTo(409);
        assertThat(other.header("Content-Type")).isEqualTo("application/json");
        assertThat(other.json().path("field").asText()).isEqualTo("requestId");
        assertThat(other.json().path("error").asText()).contains("different body");
        local.model().release();
        awaitTerminal("same-2", null);
        assertThat(local.model().calls()).hasSize(1);
        assertThat(local.model().calls().get(0)).contains("hold first");
    }

    @Test
    void unknownIdIsNotFound() {
        Api.Answer answer = local.api().status("never-submitted", null);

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        assertThat(answer.json().path("error").asText()).contains("never-submitted");
    }

    @Test
    void anotherTenantsIdLooksExactlyLikeAnUnknownOne() {
        Api.Answer submitted = local.api().submit(Api.body("small", "\"requestId\":\"mine-1\",", "hello", 100),
                "team-a");
        awaitTerminal("mine-1", "team-a");

        Api.Answer asOwner = local.api().status("mine-1", "team-a");
        Api.Answer asOther = local.api().status("mine-1", "team-b");
        Api.Answer asDefault = local.api().status("mine-1", null);
        Api.Answer unknown = local.api().status("mine-2", "team-b");

        assertThat(submitted.status()).isEqualTo(202);
        assertThat(asOwner.status()).isEqualTo(200);
        assertThat(asOther.status()).isEqualTo(404);
        assertThat(asDefault.status()).isEqualTo(404);
        assertThat(asOther.raw().body()).isEqualTo(unknown.raw().body().replace("mine-2", "mine-1"));
    }

    @Test
    void anotherTenantCannotTakeOverAnId() {
        local.api().submit(Api.body("small", "\"requestId\":\"taken-1\",", "hello", 100), "team-a");

        Api.Answer answer = local.api().submit(Api.body("small", "\"requestId\":\"taken-1\",", "mine now", 100),
                "team-b");

        assertThat(answer.status()).isEqualTo(409);
        assertThat(answer.json().path("field").asText()).isEqualTo("requestId");
        assertThat(local.api().status("taken-1", "team-b").status()).isEqualTo(404);
    }

    @Test
    void unusableTenantHeaderIsRefused() {
        Api.Answer answer = local.api().submit(Api.body("small", "\"requestId\":\"t-1\",", "hello", 100), "team#a");

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.json().path("field").asText()).isEqualTo(LocalServer.TENANT_HEADER);
        assertNothingStored("t-1");
    }

    private void assertNothingStored(String requestId) {
        assertThat(local.api().status(requestId, null).status()).as("status of " + requestId).isEqualTo(404);
        assertThat(local.runtime().queueDepth("small")).isZero();
        JsonNode models = local.api().get("/v1/models").json().path("models");
        assertThat(models).hasSize(1);
        assertThat(models.get(0).path("queueDepth").asLong()).isZero();
        assertThat(models.get(0).path("drainerActive").asBoolean()).as("a drainer was woken").isFalse();
        assertThat(local.model().calls()).isEmpty();
    }

    private JsonNode awaitTerminal(String requestId, String tenant) {
        return await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> local.api().status(requestId, tenant), answer -> answer.status() != 202).json();
    }
}
