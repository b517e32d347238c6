package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.ShaperEnvironment;
import dev.trafficshaper.lifecycle.InvocationService;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueRequest;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Builds each function's services through the functions' own composition root ({@link Shaper}),
 * from the environment the synthesized template gives that function, the way its handler does.
 * A variable the code requires but the stack does not set fails here, not at the first request in
 * AWS; a variable the stack sets but the code never reads fails too. No AWS call is made: building
 * a service only reads the environment and creates clients.
 */
class FunctionEnvironmentTest {

    /**
     * What each handler asks the composition root for (see functions/.../functions/*Handler.java).
     * A function that writes terminal states also builds the delivery hand-off ({@code notifier()}),
     * which its services make on their first hand-off.
     */
    private static final Map<String, Consumer<Shaper>> HANDLERS = Map.of(
            "submit", shaper -> {
                shaper.submissions();
                shaper.sfn();
                shaper.stateMachineArn();
                shaper.admitTimeout();
            },
            "budget-manager", shaper -> {
                shaper.admissions();
                shaper.metrics();
                shaper.notifier();
            },
            "queue-processor", shaper -> {
                shaper.drains();
                shaper.safetyNet();
                shaper.notifier();
            },
            "bedrock-processor", shaper -> {
                shaper.invocations();
                shaper.notifier();
            },
            "finalizer", shaper -> {
                shaper.finalizer();
                shaper.notifier();
            },
            "status", Shaper::status,
            "notifier", shaper -> {
                shaper.requests();
                shaper.webhookAttempts();
            });

    /** Read by the functions' log4j2.xml (level) and the Powertools log layout (service), not by Shaper. */
    private static final Set<String> READ_BY_LOGGING = Set.of("POWERTOOLS_LOG_LEVEL", "POWERTOOLS_SERVICE_NAME");

    private final SynthesizedStacks.Synthesized synthesized = SynthesizedStacks.development();

    @ParameterizedTest
    @ValueSource(strings = {"submit", "budget-manager", "queue-processor", "bedrock-processor", "finalizer",
            "status", "notifier"})
    void eachHandlerBuildsItsServicesFromTheEnvironmentTheStackGivesIt(String purpose) {
        Map<String, String> environment = synthesizedEnvironment(purpose);
        RecordingVariables variables = new RecordingVariables(environment);
        OfflineClients clients = new OfflineClients();

        HANDLERS.get(purpose).accept(new Shaper(new ShaperEnvironment(variables), clients));

        Set<String> unread = new TreeSet<>(environment.keySet());
        unread.removeAll(variables.read);
        unread.removeAll(READ_BY_LOGGING);
        assertThat(unread).as("variables set for %s that its code never reads", purpose).isEmpty();
        assertThat(environment).as("the local-only callback policy (http, loopback) stays off in AWS")
                .doesNotContainKey("SHAPER_LOCAL_CALLBACKS");
        if (purpose.equals("submit") || purpose.equals("notifier")) {
            assertThat(variables.read).as("%s checks callback URLs", purpose).contains("SHAPER_LOCAL_CALLBACKS");
        }
        if (purpose.equals("notifier")) {
            assertThat(clients.secretsAskedFor).containsExactly(environment.get("WEBHOOK_SECRET_ARN"));
        }
    }

    @Test
    void aMissingVariableWouldFailThisTest() {
        Shaper finalizerEnvironment = new Shaper(new ShaperEnvironment(synthesizedEnvironment("finalizer")),
                new OfflineClients());
        assertThatThrownBy(finalizerEnvironment::drains)
                .hasMessageContaining("environment variable BEDROCK_PROCESSOR_FUNCTION is required");
        Shaper statusEnvironment = new Shaper(new ShaperEnvironment(synthesizedEnvironment("status")),
                new OfflineClients());
        assertThatThrownBy(statusEnvironment::notifier)
                .hasMessageContaining("environment variable DELIVERY_QUEUE_URL is required");
    }

    /** The function's variables, with CloudFormation references rendered as placeholder text. */
    @SuppressWarnings("unchecked")
    private Map<String, String> synthesizedEnvironment(String purpose) {
        Map<String, Map<String, Object>> functions = synthesized.template().findResources("AWS::Lambda::Function",
                Map.of("Properties", Map.of("FunctionName", "TrafficShaper-dev-" + purpose)));
        assertThat(functions).hasSize(1);
        Map<String, Object> properties = (Map<String, Object>) functions.values().iterator().next().get("Properties");
        Map<String, Object> variables = (Map<String, Object>) ((Map<String, Object>) properties.get("Environment"))
                .get("Variables");
        Map<String, String> environment = new HashMap<>();
        variables.forEach((name, value) -> environment.put(name,
                value instanceof String text ? text : "resolved-at-deploy:" + value));
        return environment;
    }

    /** The environment map, remembering every name the code looked up. */
    private static final class RecordingVariables extends HashMap<String, String> {

        private static final long serialVersionUID = 1L;
        private final Set<String> read = new TreeSet<>();

        RecordingVariables(Map<String, String> values) {
            super(values);
        }

        @Override
        public String get(Object key) {
            read.add(key.toString());
            return super.get(key);
        }
    }

    /** Real SDK clients that are never called, and a secrets client that answers offline. */
    private static final class OfflineClients implements Shaper.Clients {

        private final List<String> secretsAskedFor = new java.util.ArrayList<>();

        @Override
        public DynamoDbClient dynamoDb() {
            return DynamoDbClient.builder().region(Region.US_EAST_1).credentialsProvider(AnonymousCredentialsProvider.create())
                    .httpClient(UrlConnectionHttpClient.create()).build();
        }

        @Override
        public S3Client s3() {
            return S3Client.builder().region(Region.US_EAST_1).credentialsProvider(AnonymousCredentialsProvider.create())
                    .httpClient(UrlConnectionHttpClient.create()).build();
        }

        @Override
        public SfnClient sfn() {
            return SfnClient.builder().region(Region.US_EAST_1).credentialsProvider(AnonymousCredentialsProvider.create())
                    .httpClient(UrlConnectionHttpClient.create()).build();
        }

        @Override
        public LambdaClient lambda() {
            return LambdaClient.builder().region(Region.US_EAST_1).credentialsProvider(AnonymousCredentialsProvider.create())
                    .httpClient(UrlConnectionHttpClient.create()).build();
        }

        @Override
        public EventBridgeClient events() {
            return EventBridgeClient.builder().region(Region.US_EAST_1)
                    .credentialsProvider(AnonymousCredentialsProvider.create())
                    .httpClient(UrlConnectionHttpClient.create()).build();
        }

        @Override
        public SqsClient sqs() {
            return SqsClient.builder().region(Region.US_EAST_1).credentialsProvider(AnonymousCredentialsProvider.create())
                    .httpClient(UrlConnectionHttpClient.create()).build();
        }

        @Override
        public SecretsManagerClient secrets() {
            return new SecretsManagerClient() {
                @Override
                public GetSecretValueResponse getSecretValue(GetSecretValueRequest request) {
                    secretsAskedFor.add(request.secretId());
                    return GetSecretValueResponse.builder().secretString("offline-signing-key").build();
                }

                @Override
                public String serviceName() {
                    return "secretsmanager";
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public BedrockRuntimeClient bedrock() {
            return BedrockInvokers.withoutRetries(BedrockRuntimeClient.builder().region(Region.US_EAST_1)
                    .credentialsProvider(AnonymousCredentialsProvider.create())
                    .httpClient(UrlConnectionHttpClient.create()), InvocationService.MAX_CALL).build();
        }
    }
}
