package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.trafficshaper.aws.dynamodb.TableKeys;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.testing.AwsEmulator;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The local server with its state in DynamoDB and S3 (the emulator) instead of memory: the same
 * adapters the Lambda functions use, behind the same HTTP API.
 */
class LocalRuntimeOnDynamoDbIT {

    private static final String MODELS = """
            {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                                      "maxTokens": 2000, "shards": 2}}}""";

    private BedrockSimulator bedrock;
    private LocalRuntime runtime;
    private LocalServer server;
    private String table;

    @BeforeEach
    void start() {
        AwsEmulator aws = AwsEmulator.shared();
        table = "local-" + System.nanoTime();
        ModelCatalog catalog = ModelCatalog.parse(MODELS);
        bedrock = BedrockSimulator.builder().catalog(catalog).latency(new LatencyModel(10, 0.05, 0)).seed(5).build()
                .start();
        runtime = LocalRuntime.builder().catalog(catalog).bedrockEndpoint(bedrock.endpoint())
                .stores(LocalStores.dynamoDb(aws.dynamoDb(), aws.s3(), table, "local-payloads-" + System.nanoTime()))
                .build();
        server = LocalServer.start(runtime, new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.close();
        bedrock.stop();
    }

    @Test
    void requestsGoThroughTheTableAndComeBackOnceEach() {
        Api api = new Api(server.baseUri());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Api.Answer accepted = api.submit(Api.body("nova-lite", "", "hello number " + i, 100));
            assertThat(accepted.status()).as(accepted.raw().body()).isEqualTo(202);
            ids.add(accepted.json().get("requestId").asText());
        }
        Api.Answer repeated = api.submit(Api.body("nova-lite", "\"requestId\":\"" + ids.get(0) + "\",",
                "hello number 0", 100));
        Api.Answer conflicting = api.submit(Api.body("nova-lite", "\"requestId\":\"" + ids.get(0) + "\",", "again",
                100));

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> ids.stream().allMatch(id -> api.status(id, null).status() != 202));

        assertThat(repeated.status()).as("the same body again, under the id it was given").isEqualTo(202);
        assertThat(conflicting.status()).as("another body under that id").isEqualTo(409);
        assertThat(conflicting.json().path("field").asText()).isEqualTo("requestId");
        assertThat(repeated.json().get("requestId").asText()).isEqualTo(ids.get(0));
        for (String id : ids) {
            Api.Answer status = api.status(id, null);
            assertThat(status.status()).as(status.raw().body()).isEqualTo(200);
            assertThat(status.json().path("usage").path("outputTokens").asLong()).isPositive();
        }
        assertThat(bedrock.calls()).isEqualTo(ids.size());
        assertThat(bedrock.throttles()).isZero();
        var stored = AwsEmulator.shared().dynamoDb().getItem(b -> b.tableName(table).key(java.util.Map.of(
                TableKeys.PK, AttributeValue.fromS(TableKeys.requestPk(ids.get(0))),
                TableKeys.SK, AttributeValue.fromS(TableKeys.STATUS_SK)))).item();
        assertThat(stored.get("state").s()).as("the status item in the table").isEqualTo("SUCCEEDED");
        assertThat(stored.get("bodyDigest").s()).matches("[0-9a-f]{64}");
        assertThat(runtime.queueDepth("nova-lite")).isZero();
    }
}
