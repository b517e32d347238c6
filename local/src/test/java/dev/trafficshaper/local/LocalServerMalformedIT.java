package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every request the server cannot or must not take, written byte for byte on a raw socket, is
 * answered with the JSON error {@code {"error", "field"?}} and the right status, never HTML, and
 * nothing is stored, no drainer woken, no model called.
 */
class LocalServerMalformedIT {

    private static final String MODELS = """
            {"models": {"small": {"modelId": "test.small-v1:0", "quotas": {"tpm": 1000000}, "maxTokens": 1000}}}""";
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final ScriptedServer local = ScriptedServer.strict(MODELS);

    private static String post(String headers, String body) {
        return "POST /v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "Content-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static final String JSON_TYPE = "Content-Type: application/json\r\n";

    static Stream<Arguments> malformedRequests() {
        String valid = Api.body("small", "\"requestId\":\"m-1\",", "hi", 100);
        return Stream.of(
                arguments("Content-Length not a number", "POST /v1/requests HTTP/1.1\r\nHost: x\r\n" + JSON_TYPE
                        + "Content-Length: abc\r\n\r\n" + valid, 400, "Content-Length"),
                arguments("negative Content-Length", "POST /v1/requests HTTP/1.1\r\nHost: x\r\n" + JSON_TYPE
                        + "Content-Length: -5\r\n\r\n" + valid, 400, "Content-Length"),
                arguments("two different Content-Lengths", "POST /v1/requests HTTP/1.1\r\nHost: x\r\n" + JSON_TYPE
                        + "Content-Length: 3\r\nContent-Length: 4\r\n\r\n" + valid, 400, "Content-Length"),
                arguments("Content-Length list", "POST /v1/requests HTTP/1.1\r\nHost: x\r\n" + JSON_TYPE
                        + "Content-Length: 3, 4\r\n\r\n" + valid, 400, "Content-Length"),
                arguments("Content-Length and Transfer-Encoding", "POST /v1/requests HTTP/1.1\r\nHost: x\r\n"
                        + JSON_TYPE + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
                        "Content-Length"),
                arguments("unknown transfer coding", "POST /v1/requests HTTP/1.1\r\nHost: x\r\n" + JSON_TYPE
                        + "Transfer-Encoding: gzip\r\n\r\n", 400, "Transfer-Encoding"),
                arguments("malformed method", "G@T /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 400, "method"),
                arguments("unknown method", "BREW /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 405, null),
                arguments("wrong method for submissions", "PUT /v1/requests HTTP/1.1\r\nHost: x\r\n"
                        + "Content-Length: 0\r\n\r\n", 405, null),
                arguments("target not a path", "GET v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 400, "path"),
                arguments("absolute target", "GET http://x/v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 400, "path"),
                arguments("unknown path", "GET /v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n", 404, null),
                arguments("extra path segment", "GET /v1/requests/a/b HTTP/1.1\r\nHost: x\r\n\r\n", 404, null),
                arguments("malformed request line", "GET /v1/models\r\nHost: x\r\n\r\n", 400, null),
                arguments("unsupported HTTP version", "GET /v1/models HTTP/2.0\r\nHost: x\r\n\r\n", 505, null),
                arguments("oversize headers", "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000)
                        + "\r\n\r\n", 431, null),
                arguments("too many headers", "GET /v1/models HTTP/1.1\r\n" + "X-H: 1\r\n".repeat(150) + "\r\n", 431,
                        null),
                arguments("space before a header's colon", "GET /v1/models HTTP/1.1\r\nHost : x\r\n\r\n", 400, null),
                arguments("folded header", "GET /v1/models HTTP/1.1\r\nHost: x\r\n  folded\r\n\r\n", 400, null),
                arguments("wrong content type", post("Content-Type: text/plain\r\n", valid), 415, "Content-Type"),
                arguments("form content type", post("Content-Type: application/x-www-form-urlencoded\r\n", valid),
                        415, "Content-Type"),
                arguments("no content type", post("", valid), 415, "Content-Type"),
                arguments("JSON in another charset", post("Content-Type: application/json; charset=latin1\r\n",
                        valid), 415, "Content-Type"),
                arguments("bare CR in the tenant header", post(JSON_TYPE + "X-Shaper-Tenant: team-a\rX: y\r\n", valid),
                        400, "X-Shaper-Tenant"),
                arguments("tenant header ending in a bare CR", post(JSON_TYPE + "X-Shaper-Tenant: team-a\r\r\n", valid),
                        400, "X-Shaper-Tenant"),
                arguments("control character in the tenant header", post(JSON_TYPE
                        + "X-Shaper-Tenant: team\u0001a\r\n", valid), 400, "X-Shaper-Tenant"),
                arguments("space inside the tenant header", post(JSON_TYPE + "X-Shaper-Tenant: team a\r\n", valid),
                        400, "X-Shaper-Tenant"),
                arguments("duplicate key", post(JSON_TYPE, "{\"model\":\"nope\","
                        + valid.substring(1)), 400, "model"),
                arguments("requestId ..", post(JSON_TYPE, valid.replace("m-1", "..")), 400, "requestId"),
                arguments("requestId .", post(JSON_TYPE, valid.replace("m-1", ".")), 400, "requestId"),
                arguments("requestId with a colon", post(JSON_TYPE, valid.replace("m-1", "m:1")), 400, "requestId"),
                arguments("requestId over 128 characters", post(JSON_TYPE, valid.replace("m-1", "m".repeat(129))),
                        400, "requestId"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRequests")
    void aMalformedRequestGetsTheJsonErrorAndNothingIsStored(String name, String request, int status, String field)
            throws IOException {
        RawResponse answer = exchange(request.getBytes(StandardCharsets.ISO_8859_1));

        assertThat(answer.status()).as(answer.text()).isEqualTo(status);
        assertThat(answer.head()).containsIgnoringCase("content-type: application/json");
        assertThat(answer.body()).doesNotContain("<");
        JsonNode json = JSON.readTree(answer.body());
        assertThat(json.path("error").asText()).isNotBlank();
        if (field != null) {
            assertThat(json.path("field").asText()).as(answer.body()).isEqualTo(field);
        }
        assertNothingStored("m-1");
    }

    @ParameterizedTest(name = "bytes {0}")
    @MethodSource("invalidUtf8")
    void aBodyThatIsNotValidUtf8IsRefused(String hex) throws IOException {
        byte[] valid = Api.body("small", "\"requestId\":\"m-1\",", "@@", 100).getBytes(StandardCharsets.UTF_8);
        String text = new String(valid, StandardCharsets.ISO_8859_1).replace("@@",
                new String(HexFormat.of().parseHex(hex), StandardCharsets.ISO_8859_1));
        byte[] body = text.getBytes(StandardCharsets.ISO_8859_1);
        byte[] head = ("POST /v1/requests HTTP/1.1\r\nHost: x\r\n" + JSON_TYPE + "Content-Length: " + body.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(head);
        request.write(body);

        RawResponse answer = exchange(request.toByteArray());

        assertThat(answer.status()).as(answer.text()).isEqualTo(400);
        assertThat(JSON.readTree(answer.body()).path("error").asText()).contains("UTF-8");
        assertNothingStored("m-1");
    }

    static Stream<String> invalidUtf8() {
        return Stream.of("c0af", "e080af", "f08080af", "eda080", "ff");
    }

    @Test
    void statusUrlIsBuiltOnTheConfiguredBaseNotOnTheHostHeader() throws IOException {
        RawResponse answer = exchange(("POST /v1/requests HTTP/1.1\r\nHost: evil.example:666\r\n" + JSON_TYPE
                + "Content-Length: " + Api.body("small", "\"requestId\":\"h-1\",", "hi", 100).length() + "\r\n\r\n"
                + Api.body("small", "\"requestId\":\"h-1\",", "hi", 100)).getBytes(StandardCharsets.UTF_8));

        assertThat(answer.status()).as(answer.text()).isEqualTo(202);
        assertThat(JSON.readTree(answer.body()).path("statusUrl").asText())
                .isEqualTo(local.server().baseUri() + "/v1/requests/h-1");
    }

    @Test
    void statusUrlFollowsThePublicBaseWhenOneIsConfigured() {
        try (LocalServer proxied = LocalServer.start(local.runtime(), new LocalServer.Options(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .publicBaseUri(java.net.URI.create("https://shaper.example.test/base/")))) {
            Api.Answer answer = new Api(proxied.baseUri()).submit(Api.body("small", "\"requestId\":\"p-1\",", "hi", 100));

            assertThat(answer.json().path("statusUrl").asText())
                    .isEqualTo("https://shaper.example.test/base/v1/requests/p-1");
        }
    }

    @Test
    void aRequestIdOfEveryAllowedCharacterIsServedAtItsStatusUrl() {
        String id = "A.z_0~-9...";
        Api.Answer submitted = local.api().submit(Api.body("small", "\"requestId\":\"" + id + "\",", "hi", 100));

        assertThat(submitted.status()).as(submitted.raw().body()).isEqualTo(202);
        String statusUrl = submitted.json().path("statusUrl").asText();
        assertThat(statusUrl).isEqualTo(local.server().baseUri() + "/v1/requests/" + id);
        assertThat(local.api().get(java.net.URI.create(statusUrl).getRawPath()).json().path("requestId").asText())
                .isEqualTo(id);
    }

    @Test
    void jsonWithACharsetParameterIsAccepted() throws IOException {
        String body = Api.body("small", "\"requestId\":\"c-1\",", "hi", 100);
        RawResponse answer = exchange(post("Content-Type: Application/JSON; charset=UTF-8\r\n", body)
                .getBytes(StandardCharsets.UTF_8));

        assertThat(answer.status()).as(answer.text()).isEqualTo(202);
    }

    private void assertNothingStored(String requestId) {
        assertThat(local.api().status(requestId, null).status()).as("status of " + requestId).isEqualTo(404);
        assertThat(local.runtime().queueDepth("small")).isZero();
        JsonNode models = local.api().get("/v1/models").json().path("models");
        assertThat(models.get(0).path("queueDepth").asLong()).isZero();
        assertThat(models.get(0).path("drainerActive").asBoolean()).as("a drainer was woken").isFalse();
        assertThat(local.model().calls()).isEmpty();
    }

    private RawResponse exchange(byte[] request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), local.server().baseUri().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            return RawResponse.read(socket.getInputStream());
        }
    }
}
