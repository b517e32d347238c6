package dev.trafficshaper.client;

import static dev.trafficshaper.client.WebhookVerifier.Verdict.BAD_SIGNATURE;
import static dev.trafficshaper.client.WebhookVerifier.Verdict.MALFORMED_HEADER;
import static dev.trafficshaper.client.WebhookVerifier.Verdict.MISSING_HEADER;
import static dev.trafficshaper.client.WebhookVerifier.Verdict.STALE_TIMESTAMP;
import static dev.trafficshaper.client.WebhookVerifier.Verdict.VALID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebhookVerifierTest {

    private static final String SECRET = "whsec_test";
    private static final Instant SENT = Instant.parse("2025-06-01T12:00:00Z");
    private static final String TIMESTAMP = Long.toString(SENT.getEpochSecond());
    private static final String BODY = "{\"requestId\":\"r-1\",\"status\":\"SUCCEEDED\"}";
    /** HMAC-SHA256("whsec_test", "1748779200." + BODY), computed independently with openssl. */
    private static final String KNOWN_SIGNATURE =
            "sha256=f0f8a48e1f717035bed42feeb3f5e4ff083f89f4c27e2ba3a65a71544ee0fd18";

    private final WebhookVerifier verifier = WebhookVerifier.create();

    @Test
    void signsTimestampDotBodyWithHmacSha256InLowercaseHex() {
        assertThat(WebhookVerifier.sign(SECRET, SENT.getEpochSecond(), BODY)).isEqualTo(KNOWN_SIGNATURE);
    }

    @Test
    void acceptsACallSignedWithTheSecretWithinTheWindow() {
        assertThat(verifier.verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE, BODY, SENT.plusSeconds(3))).isEqualTo(VALID);
        assertThat(verifier.verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE, BODY.getBytes(StandardCharsets.UTF_8),
                SENT.plus(Duration.ofMinutes(5)))).isEqualTo(VALID);
    }

    @Test
    void theSendersHeadersVerify() {
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        Map<String, String> headers = WebhookVerifier.signatureHeaders(SECRET, body, SENT);

        assertThat(headers).containsEntry(WebhookVerifier.TIMESTAMP_HEADER, TIMESTAMP)
                .containsEntry(WebhookVerifier.SIGNATURE_HEADER, KNOWN_SIGNATURE);
        assertThat(verifier.verify(SECRET, headers.get(WebhookVerifier.TIMESTAMP_HEADER),
                headers.get(WebhookVerifier.SIGNATURE_HEADER), body, SENT).isValid()).isTrue();
    }

    @Test
    void rejectsATamperedBody() {
        String tampered = BODY.replace("SUCCEEDED", "FAILED");

        assertThat(verifier.verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE, tampered, SENT)).isEqualTo(BAD_SIGNATURE);
        assertThat(verifier.verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE, BODY + " ", SENT)).isEqualTo(BAD_SIGNATURE);
    }

    @Test
    void rejectsAnotherSecret() {
        assertThat(verifier.verify("whsec_other", TIMESTAMP, KNOWN_SIGNATURE, BODY, SENT)).isEqualTo(BAD_SIGNATURE);
    }

    @Test
    void rejectsASignatureMovedToAnotherTimestamp() {
        String later = Long.toString(SENT.getEpochSecond() + 60);

        assertThat(verifier.verify(SECRET, later, KNOWN_SIGNATURE, BODY, SENT.plusSeconds(60)))
                .isEqualTo(BAD_SIGNATURE);
    }

    @Test
    void rejectsAnOldTimestampAsAReplayEvenWithAValidSignature() {
        Instant sixMinutesLater = SENT.plus(Duration.ofMinutes(6));

        assertThat(verifier.verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE, BODY, sixMinutesLater))
                .isEqualTo(STALE_TIMESTAMP);
        assertThat(verifier.verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE, BODY, SENT.minus(Duration.ofMinutes(6))))
                .isEqualTo(STALE_TIMESTAMP);
        assertThat(WebhookVerifier.withTolerance(Duration.ofMinutes(10))
                .verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE, BODY, sixMinutesLater)).isEqualTo(VALID);
    }

    @Test
    void rejectsMissingAndMalformedHeaders() {
        assertThat(verifier.verify(SECRET, null, KNOWN_SIGNATURE, BODY, SENT)).isEqualTo(MISSING_HEADER);
        assertThat(verifier.verify(SECRET, TIMESTAMP, " ", BODY, SENT)).isEqualTo(MISSING_HEADER);
        assertThat(verifier.verify(SECRET, "yesterday", KNOWN_SIGNATURE, BODY, SENT)).isEqualTo(MALFORMED_HEADER);
        assertThat(verifier.verify(SECRET, TIMESTAMP, KNOWN_SIGNATURE.substring(7), BODY, SENT))
                .isEqualTo(MALFORMED_HEADER);
        assertThat(verifier.verify(SECRET, TIMESTAMP, "sha256=abc", BODY, SENT)).isEqualTo(MALFORMED_HEADER);
        assertThat(verifier.verify(SECRET, TIMESTAMP, "sha256=" + "z".repeat(64), BODY, SENT))
                .isEqualTo(MALFORMED_HEADER);
        assertThat(verifier.verify(SECRET, "-9223372036854775808", KNOWN_SIGNATURE, BODY, SENT))
                .isEqualTo(STALE_TIMESTAMP);
    }

    @Test
    void anEmptySecretIsAConfigurationError() {
        assertThatThrownBy(() -> verifier.verify("", TIMESTAMP, KNOWN_SIGNATURE, BODY, SENT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aVerifiedBodyReadsAsARequestStatus() {
        RequestStatus succeeded = RequestStatus.fromWebhook("""
                {"requestId":"r-1","model":"nova-lite","status":"SUCCEEDED",
                 "response":{"output":{"message":{"content":[{"text":"Hi"}]}}},
                 "usage":{"inputTokens":5,"outputTokens":1}}""");
        RequestStatus expired = RequestStatus.fromWebhook(
                "{\"requestId\":\"r-2\",\"status\":\"EXPIRED\",\"reason\":\"DEADLINE_EXPIRED\"}");
        RequestStatus throttled = RequestStatus.fromWebhook(
                "{\"requestId\":\"r-3\",\"status\":\"FAILED\",\"reason\":\"THROTTLED\"}");
        RequestStatus withStatus = RequestStatus.fromWebhook(
                "{\"requestId\":\"r-4\",\"status\":\"FAILED\",\"reason\":\"SOMETHING_NEW\",\"httpStatus\":502}");

        assertThat(succeeded.isSucceeded()).isTrue();
        assertThat(succeeded.httpStatus()).isEqualTo(200);
        assertThat(succeeded.outputText()).contains("Hi");
        assertThat(succeeded.usage().map(Usage::totalTokens)).contains(6L);
        assertThat(expired.isFailed()).isTrue();
        assertThat(expired.httpStatus()).isEqualTo(504);
        assertThat(throttled.httpStatus()).isEqualTo(429);
        assertThat(withStatus.httpStatus()).isEqualTo(502);
        assertThat(RequestStatus.fromWebhook("{\"requestId\":\"r-5\",\"status\":\"SUCCEEDED\",\"response\":"
                + "{\"usage\":{\"inputTokens\":7,\"outputTokens\":2,\"totalTokens\":9,\"cacheReadInputTokens\":5}}}")
                .usage()).contains(new Usage(7, 2, 9, 5, 0));
        assertThatThrownBy(() -> RequestStatus.fromWebhook("not json")).isInstanceOf(IllegalArgumentException.class);
    }
}
