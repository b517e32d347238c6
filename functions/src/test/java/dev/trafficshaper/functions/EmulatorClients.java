package dev.trafficshaper.functions;

import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import dev.trafficshaper.testing.AwsEmulator;
import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
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
 * The functions' clients as the ITs build a {@link Shaper}: every AWS client on the emulator, and
 * Bedrock either on a simulator's endpoint, retries off as the Bedrock Processor builds it, or
 * refused where no model call is expected.
 */
final class EmulatorClients implements Shaper.Clients {

    private final AwsEmulator aws;
    private final DynamoDbClient dynamoDb;
    private final Supplier<BedrockRuntimeClient> bedrock;

    private EmulatorClients(AwsEmulator aws, DynamoDbClient dynamoDb, Supplier<BedrockRuntimeClient> bedrock) {
        this.aws = aws;
        this.dynamoDb = dynamoDb;
        this.bedrock = bedrock;
    }

    /** For functions that make no model call (delivery, submission): building Bedrock fails the test. */
    static Shaper.Clients withoutBedrock(AwsEmulator aws) {
        return new EmulatorClients(aws, aws.dynamoDb(), () -> {
            throw new UnsupportedOperationException("no Bedrock call expected");
        });
    }

    /** Bedrock at {@code endpoint}, a simulator on 127.0.0.1. */
    static Shaper.Clients withBedrock(AwsEmulator aws, URI endpoint) {
        return withBedrock(aws, aws.dynamoDb(), endpoint);
    }

    /** {@code dynamoDb} in place of the emulator's own client (one that injects faults, say). */
    static Shaper.Clients withBedrock(AwsEmulator aws, DynamoDbClient dynamoDb, URI endpoint) {
        return new EmulatorClients(aws, dynamoDb, () -> bedrockAt(endpoint));
    }

    /** A Bedrock client of the simulator at {@code endpoint}, with the SDK's retries off. */
    static BedrockRuntimeClient bedrockAt(URI endpoint) {
        return BedrockInvokers.withoutRetries(BedrockRuntimeClient.builder()
                .httpClient(UrlConnectionHttpClient.builder().build())
                .endpointOverride(endpoint).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b"))),
                Duration.ofSeconds(30)).build();
    }

    public DynamoDbClient dynamoDb() { return dynamoDb; }
    public S3Client s3() { return aws.s3(); }
    public SfnClient sfn() { return aws.configure(SfnClient.builder()).build(); }
    public LambdaClient lambda() { return aws.configure(LambdaClient.builder()).build(); }
    public EventBridgeClient events() { return aws.configure(EventBridgeClient.builder()).build(); }
    public SecretsManagerClient secrets() { return aws.configure(SecretsManagerClient.builder()).build(); }
    public SqsClient sqs() { return aws.configure(SqsClient.builder()).build(); }
    public BedrockRuntimeClient bedrock() { return bedrock.get(); }
}
