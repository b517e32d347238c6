package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.functions.budget.BudgetManagerHandler;
import dev.trafficshaper.functions.drain.QueueProcessorHandler;
import dev.trafficshaper.functions.finalize.FinalizerHandler;
import dev.trafficshaper.functions.invoke.BedrockProcessorHandler;
import dev.trafficshaper.functions.notify.NotifierHandler;
import dev.trafficshaper.functions.status.StatusHandler;
import dev.trafficshaper.functions.submit.SubmitHandler;
import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
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
 * What each handler builds before a SnapStart snapshot: its clients, and no AWS call (a connection
 * opened before the snapshot would be stale after a restore; the webhook key must not be in it).
 */
class SnapStartPrimingTest {

    private final List<String> built = new ArrayList<>();
    private final List<String> calls = new ArrayList<>();

    @Test
    void primingBuildsEachHandlersClientsAndCallsNothing() {
        Map<String, Consumer<Shaper>> handlers = Map.of(
                "submit", SubmitHandler::prime, "budget", BudgetManagerHandler::prime,
                "drain", QueueProcessorHandler::prime, "invoke", BedrockProcessorHandler::prime,
                "finalize", FinalizerHandler::prime, "status", StatusHandler::prime, "notify", NotifierHandler::prime);

        handlers.forEach((name, prime) -> {
            built.clear();
            prime.accept(shaper());
            assertThat(built).as(name).contains("dynamodb");
        });
        assertThat(calls).isEmpty();
    }

    @Test
    void theBedrockProcessorPrimesItsBedrockClientAndSubmitItsStepFunctionsClient() {
        Shaper invoke = shaper();
        BedrockProcessorHandler.prime(invoke);
        assertThat(built).contains("bedrock", "sfn");

        built.clear();
        SubmitHandler.prime(shaper());
        assertThat(built).contains("sfn", "s3");
        assertThat(built).doesNotContain("secrets");
        assertThat(calls).isEmpty();
    }

    private Shaper shaper() {
        Map<String, String> env = Map.of("TABLE_NAME", "t", "PAYLOAD_BUCKET", "b", "EVENT_BUS_NAME", "bus",
                "WEBHOOK_SECRET_ARN", "arn:aws:secretsmanager:us-east-1:123456789012:secret:s",
                "MODELS_CONFIG", """
                        {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                          "maxTokens": 2000, "shards": 1, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600}}}""",
                "QUEUE_PROCESSOR_FUNCTION", "queue-processor", "BEDROCK_PROCESSOR_FUNCTION", "bedrock-processor",
                "DELIVERY_QUEUE_URL", "http://127.0.0.1:9/queue", "STATE_MACHINE_ARN",
                "arn:aws:states:us-east-1:123456789012:stateMachine:s");
        return new Shaper(new ShaperEnvironment(env), new Shaper.Clients() {
            public DynamoDbClient dynamoDb() { return unreachable(DynamoDbClient.builder(), "dynamodb").build(); }
            public S3Client s3() { return unreachable(S3Client.builder(), "s3").build(); }
            public SfnClient sfn() { return unreachable(SfnClient.builder(), "sfn").build(); }
            public LambdaClient lambda() { return unreachable(LambdaClient.builder(), "lambda").build(); }
            public EventBridgeClient events() { return unreachable(EventBridgeClient.builder(), "events").build(); }
            public SecretsManagerClient secrets() {
                return unreachable(SecretsManagerClient.builder(), "secrets").build();
            }
            public SqsClient sqs() { return unreachable(SqsClient.builder(), "sqs").build(); }
            public BedrockRuntimeClient bedrock() {
                built.add("bedrock");
                return BedrockInvokers.withoutRetries(BedrockRuntimeClient.builder()
                        .endpointOverride(URI.create("http://127.0.0.1:9")).region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                        .httpClient(UrlConnectionHttpClient.builder().build()), Duration.ofSeconds(5)).build();
            }
        });
    }

    /** A client of the discard port on loopback, recording that it was built and any call it makes. */
    private <B extends AwsClientBuilder<B, ?> & AwsSyncClientBuilder<B, ?>> B unreachable(B builder, String name) {
        built.add(name);
        return builder.endpointOverride(URI.create("http://127.0.0.1:9")).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .httpClient(UrlConnectionHttpClient.builder().build())
                .overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                        calls.add(name + " " + context.request().getClass().getSimpleName());
                    }
                }));
    }
}
