package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.functions.status.StatusHandler;
import dev.trafficshaper.functions.submit.SubmitHandler;
import dev.trafficshaper.testing.AwsEmulator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A StartExecution that Step Functions refuses for load: the caller gets 429 with Retry-After and
 * the request id, nothing is queued, and the same body posted again with that id starts it. The
 * request store and payloads are moto's; Step Functions is a stand-in on 127.0.0.1 that answers
 * the first calls as the service does when throttling (the real SDK parses its answers), since
 * the emulator never throttles.
 */
class SubmitThrottledIT {

    private static final String TENANT = "arn:aws:iam::123456789012:user/alice";
    private static final String MODELS = """
            {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
              "maxTokens": 2000, "shards": 1, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600}}}""";

    private static AwsEmulator aws;
    private static HttpServer stepFunctions;
    private static final List<String> refusals = new ArrayList<>();
    private static final List<String> startedNames = new ArrayList<>();
    private static final AtomicInteger calls = new AtomicInteger();
    private static Shaper shaper;

    @BeforeAll
    static void start() throws IOException {
        aws = AwsEmulator.moto();
        String table = aws.createTable("throttled");
        String bucket = aws.createBucket("throttled");
        stepFunctions = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        stepFunctions.createContext("/", exchange -> {
            String request = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            calls.incrementAndGet();
            String refusal;
            synchronized (refusals) {
                refusal = refusals.isEmpty() ? null : refusals.remove(0);
            }
            byte[] answer;
            int status;
            if (refusal != null) {
                status = 400;
                answer = ("{\"__type\":\"com.amazonaws.swf.service.v2.model#" + refusal
                        + "\",\"message\":\"Rate exceeded\"}").getBytes(StandardCharsets.UTF_8);
            } else {
                synchronized (startedNames) {
                    startedNames.add(Json.MAPPER.readTree(request).path("name").asText());
                }
                status = 200;
                answer = "{\"executionArn\":\"arn:aws:states:us-east-1:123456789012:execution:sm:x\",\"startDate\":1.8E9}"
                        .getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        stepFunctions.start();
        URI sfnEndpoint = URI.create("http://127.0.0.1:" + stepFunctions.getAddress().getPort());
        Map<String, String> env = Map.of("TABLE_NAME", table, "PAYLOAD_BUCKET", bucket, "MODELS_CONFIG", MODELS,
                "STATE_MACHINE_ARN", "arn:aws:states:us-east-1:123456789012:stateMachine:sm",
                "QUEUE_PROCESSOR_FUNCTION", "queue-processor", "BEDROCK_PROCESSOR_FUNCTION", "bedrock-processor");
        shaper = new Shaper(new ShaperEnvironment(env), new Shaper.Clients() {
            public DynamoDbClient dynamoDb() { return aws.dynamoDb(); }
            public S3Client s3() { return aws.s3(); }
            public SfnClient sfn() {
                return SfnClient.builder().endpointOverride(sfnEndpoint).region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
                        .build();
            }
            public LambdaClient lambda() { throw new AssertionError("no Lambda call expected"); }
            public EventBridgeClient events() { throw new AssertionError("no event expected"); }
            public SecretsManagerClient secrets() { throw new AssertionError("no secret expected"); }
            public SqsClient sqs() { throw new AssertionError("no queue expected"); }
            public BedrockRuntimeClient bedrock() { throw new AssertionError("no model call expected"); }
        });
    }

    @AfterAll
    static void stop() {
        if (stepFunctions != null) {
            stepFunctions.stop(0);
        }
    }

    @Test
    void aThrottledStartIs429WithRetryAfterAndTheSameBodyPostedAgainStartsIt() throws IOException {
        synchronized (refusals) {
            refusals.add("ThrottlingException");
        }
        String body = """
                {"requestId": "throttled-1", "model": "nova-lite",
                 "converse": {"messages": [{"role": "user", "content": [{"text": "hello"}]}],
                              "inferenceConfig": {"maxTokens": 100}}}""";

        APIGatewayProxyResponseEvent refused = submit(body);
        APIGatewayProxyResponseEvent status = status("throttled-1");
        APIGatewayProxyResponseEvent accepted = submit(body);

        assertThat(refused.getStatusCode()).as(refused.getBody()).isEqualTo(429);
        assertThat(refused.getHeaders()).containsEntry("Retry-After", "1");
        assertThat(Json.MAPPER.readTree(refused.getBody()).path("requestId").asText()).isEqualTo("throttled-1");
        assertThat(status.getStatusCode()).as("nothing was queued").isEqualTo(404);
        assertThat(accepted.getStatusCode()).as(accepted.getBody()).isEqualTo(202);
        assertThat(startedNames).containsExactly(SubmitHandler.executionName(TENANT, "throttled-1"));
    }

    @Test
    void theAccountsOpenExecutionLimitAsksForALongerWait() {
        synchronized (refusals) {
            refusals.add("ExecutionLimitExceeded");
        }
        APIGatewayProxyResponseEvent refused = submit("""
                {"requestId": "limited-1", "model": "nova-lite",
                 "converse": {"messages": [{"role": "user", "content": [{"text": "hello"}]}],
                              "inferenceConfig": {"maxTokens": 100}}}""");

        assertThat(refused.getStatusCode()).as(refused.getBody()).isEqualTo(429);
        assertThat(refused.getHeaders()).containsEntry("Retry-After", "30");
    }

    private static APIGatewayProxyResponseEvent submit(String body) {
        return new SubmitHandler(shaper).handleRequest(ApiEvents.submit(body, TENANT), new FakeContext("submit", 10_000));
    }

    private static APIGatewayProxyResponseEvent status(String id) {
        return new StatusHandler(shaper).handleRequest(ApiEvents.status(id, TENANT), new FakeContext("status", 10_000));
    }
}
