package dev.trafficshaper.client.aws;

import static dev.trafficshaper.client.FakeShaperApi.answer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.client.FakeShaperApi;
import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.client.SignableRequest;
import dev.trafficshaper.client.Submission;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

class AwsSigV4SignerTest {

    private static final String ACCESS_KEY = "AKIDEXAMPLE";
    private static final String SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final String REGION = "eu-west-1";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-06-01T12:00:00Z"), ZoneOffset.UTC);
    private static final Pattern AUTHORIZATION = Pattern.compile("AWS4-HMAC-SHA256 "
            + "Credential=([^/]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request, "
            + "SignedHeaders=([^,]+), Signature=([0-9a-f]{64})");

    private final AwsSigV4Signer signer = AwsSigV4Signer.builder()
            .region(REGION)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
            .clock(CLOCK)
            .build();

    @Test
    void addsAuthorizationAndDateForExecuteApi() {
        Map<String, String> added = signer.sign(new SignableRequest("GET",
                URI.create("https://abc.execute-api.eu-west-1.amazonaws.com/prod/v1/requests/r-1"),
                Map.of("Accept", "application/json"), null));

        assertThat(added).containsEntry("X-Amz-Date", "20250601T120000Z");
        Matcher authorization = AUTHORIZATION.matcher(added.get("Authorization"));
        assertThat(authorization.matches()).as(added.get("Authorization")).isTrue();
        assertThat(authorization.group(1)).isEqualTo(ACCESS_KEY);
        assertThat(authorization.group(2)).isEqualTo("20250601");
        assertThat(authorization.group(3)).isEqualTo(REGION);
        assertThat(authorization.group(4)).isEqualTo("execute-api");
        assertThat(authorization.group(5).split(";")).contains("accept", "host", "x-amz-date");
        assertThat(added.keySet()).allMatch(name -> !name.equalsIgnoreCase("host"))
                .allMatch(name -> !name.equalsIgnoreCase("accept"));
    }

    @Test
    void sessionCredentialsAddTheSecurityToken() {
        AwsSigV4Signer withSession = AwsSigV4Signer.builder()
                .region(REGION)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsSessionCredentials.create(ACCESS_KEY, SECRET_KEY, "session-token")))
                .clock(CLOCK)
                .build();

        Map<String, String> added = withSession.sign(new SignableRequest("GET",
                URI.create("https://abc.execute-api.eu-west-1.amazonaws.com/prod/v1/models"), Map.of(), null));

        assertThat(added).containsEntry("X-Amz-Security-Token", "session-token").containsKey("Authorization");
    }

    @Test
    void theSignatureMatchesWhatTheServerReceives() throws IOException, GeneralSecurityException {
        try (FakeShaperApi api = FakeShaperApi.start();
                ShaperClient client = ShaperClient.builder().baseUri(api.baseUri()).signer(signer).build()) {
            api.on("POST", "/v1/requests", answer(202, "{\"requestId\":\"r-1\",\"status\":\"QUEUED\"}"));
            api.on("GET", "/v1/requests/r-1", answer(202, "{\"requestId\":\"r-1\",\"status\":\"QUEUED\"}"));

            client.submit(Submission.text("nova-lite", "Grüße", 32).toBuilder().requestId("r-1").build());
            client.status("r-1");

            assertThat(api.exchanges()).hasSize(2).allSatisfy(exchange -> {
                assertThat(exchange.header("X-Amz-Date")).isEqualTo("20250601T120000Z");
                Matcher authorization = AUTHORIZATION.matcher(exchange.header("Authorization"));
                assertThat(authorization.matches()).isTrue();
                assertThat(authorization.group(6)).isEqualTo(recomputedSignature(exchange, authorization.group(5)));
            });
            assertThat(api.exchanges().get(0).header("Authorization")).contains("content-type");
        }
    }

    /** SigV4 computed here from the request as received, independently of the SDK. */
    private static String recomputedSignature(FakeShaperApi.Exchange exchange, String signedHeaders) {
        try {
            StringBuilder canonicalHeaders = new StringBuilder();
            for (String name : signedHeaders.split(";")) {
                canonicalHeaders.append(name).append(':').append(exchange.header(name).strip()).append('\n');
            }
            String canonicalRequest = String.join("\n", exchange.method(), exchange.path(), "",
                    canonicalHeaders.toString(), signedHeaders, hex(sha256(exchange.body())));
            String scope = "20250601/" + REGION + "/execute-api/aws4_request";
            String stringToSign = String.join("\n", "AWS4-HMAC-SHA256", exchange.header("X-Amz-Date"), scope,
                    hex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8))));
            byte[] key = ("AWS4" + SECRET_KEY).getBytes(StandardCharsets.UTF_8);
            for (String part : new String[] {"20250601", REGION, "execute-api", "aws4_request"}) {
                key = hmac(key, part);
            }
            return hex(hmac(key, stringToSign));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] sha256(byte[] data) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    private static byte[] hmac(byte[] key, String data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
