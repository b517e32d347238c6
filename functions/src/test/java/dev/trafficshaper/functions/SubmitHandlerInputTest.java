package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyRequestEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.functions.submit.SubmitHandler;
import java.net.URI;
import java.util.Base64;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The API's {@code POST /v1/requests} refuses what it must not take before touching anything:
 * every AWS call here fails the test before it is sent, so a refusal provably stored nothing,
 * started no execution and called no model.
 */
class SubmitHandlerInputTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODELS = """
            {"models": {"small": {"modelId": "test.small-v1:0", "quotas": {"tpm": 1000000}, "maxTokens": 1000}}}""";
    private static final String VALID = "{\"requestId\":\"r-1\",\"model\":\"small\",\"converse\":{\"messages\":"
            + "[{\"role\":\"user\",\"content\":[{\"text\":\"@@\"}]}],\"inferenceConfig\":{\"maxTokens\":10}}}";

    private final Shaper shaper = new Shaper(new ShaperEnvironment(Map.of("MODELS_CONFIG", MODELS, "TABLE_NAME", "t",
            "PAYLOAD_BUCKET", "b")), new NoClients());
    private final SubmitHandler handler = new SubmitHandler(shaper);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
            "no content type                 | NULL                              | hi   | 415 | Content-Type",
            "text/plain                      | text/plain                        | hi   | 415 | Content-Type",
            "JSON in latin1                  | application/json; charset=latin1  | hi   | 415 | Content-Type",
            "JSON with a profile             | application/json; profile=x       | hi   | 415 | Content-Type",
            "JSON lookalike                  | application/jsonp                 | hi   | 415 | Content-Type",
            "duplicate key                   | application/json                  | DUP  | 400 | model",
            "overlong UTF-8                  | application/json                  | c0af | 400 | ''",
            "encoded surrogate               | application/json                  | eda080 | 400 | ''",
            "requestId ..                    | application/json                  | DOTS | 400 | requestId",
            "requestId with a slash          | application/json                  | SLASH | 400 | requestId"})
    void refusesWithTheJsonErrorBeforeAnyAwsCall(String name, String contentType, String variant, int status,
                                                 String field) throws Exception {
        APIGatewayProxyResponseEvent response = handler.handleRequest(event(contentType, body(variant)),
                new FakeContext("submit", 10_000));

        assertThat(response.getStatusCode()).as(response.getBody()).isEqualTo(status);
        assertThat(response.getHeaders()).containsEntry("Content-Type", "application/json");
        JsonNode json = JSON.readTree(response.getBody());
        assertThat(json.path("error").asText()).isNotBlank();
        assertThat(json.path("field").asText()).isEqualTo(field);
    }

    private static byte[] body(String variant) {
        return switch (variant) {
            case "DUP" -> ("{\"model\":\"nope\"," + VALID.substring(1)).replace("@@", "hi").getBytes();
            case "DOTS" -> VALID.replace("r-1", "..").replace("@@", "hi").getBytes();
            case "SLASH" -> VALID.replace("r-1", "a/b").replace("@@", "hi").getBytes();
            case "hi" -> VALID.replace("@@", "hi").getBytes();
            default -> {
                String[] parts = VALID.split("@@");
                byte[] bad = HexFormat.of().parseHex(variant);
                byte[] head = parts[0].getBytes();
                byte[] tail = parts[1].getBytes();
                byte[] all = new byte[head.length + bad.length + tail.length];
                System.arraycopy(head, 0, all, 0, head.length);
                System.arraycopy(bad, 0, all, head.length, bad.length);
                System.arraycopy(tail, 0, all, head.length + bad.length, tail.length);
                yield all;
            }
        };
    }

    private static APIGatewayProxyRequestEvent event(String contentType, byte[] body) {
        Map<String, String> headers = new HashMap<>();
        if (contentType != null) {
            headers.put("content-type", contentType);
        }
        APIGatewayProxyRequestEvent event = new APIGatewayProxyRequestEvent().withHttpMethod("POST")
                .withPath("/v1/requests").withHeaders(headers).withIsBase64Encoded(true)
                .withBody(Base64.getEncoder().encodeToString(body));
        event.setRequestContext(new APIGatewayProxyRequestEvent.ProxyRequestContext().withIdentity(
                new APIGatewayProxyRequestEvent.RequestIdentity().withUserArn("arn:aws:iam::123456789012:user/t")));
        return event;
    }

    /**
     * Real clients, pointed at a closed loopback port, whose every call fails the test before it
     * is sent: a refusal must make none.
     */
    private static final class NoClients implements Shaper.Clients {
        private static final ExecutionInterceptor NO_CALLS = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                throw new AssertionError("AWS call made: " + context.request().getClass().getSimpleName());
            }
        };

        private static <B extends AwsClientBuilder<B, C>, C> C client(B builder) {
            return builder.endpointOverride(URI.create("http://127.0.0.1:9")).region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                    .overrideConfiguration(c -> c.addExecutionInterceptor(NO_CALLS)).build();
        }

        public DynamoDbClient dynamoDb() { return client(DynamoDbClient.builder()); }
        public S3Client s3() { return client(S3Client.builder()); }
        public SfnClient sfn() { return client(SfnClient.builder()); }
        public LambdaClient lambda() { return client(LambdaClient.builder()); }
        public EventBridgeClient events() { return client(EventBridgeClient.builder()); }
        public SecretsManagerClient secrets() { return client(SecretsManagerClient.builder()); }
        public BedrockRuntimeClient bedrock() { return client(BedrockRuntimeClient.builder()); }
        public SqsClient sqs() { return client(SqsClient.builder()); }
    }
}
