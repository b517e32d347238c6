package dev.trafficshaper.loadtest.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.DirectoryObjectStore;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.OutcomeLine;
import dev.trafficshaper.loadtest.harness.OutcomeStatus;
import dev.trafficshaper.loadtest.harness.RequestIds;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.harness.RunSchedule;
import dev.trafficshaper.loadtest.harness.SliceItem;
import dev.trafficshaper.loadtest.harness.TestRuns;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.local.LocalClock;
import dev.trafficshaper.local.LocalRuntime;
import dev.trafficshaper.local.LocalServer;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;

/**
 * The Lambda worker's handler plays worker 0's slice of a two-worker run against the local server
 * (the shaper arm, no callback: as on AWS) and a Bedrock simulator (the direct arm), writing its
 * outcome objects to a directory standing in for S3. The local runtime's outcome events then go
 * through the recorder as the SQS queue would deliver them, and the reconcile step finds worker 0's
 * requests complete and worker 1's — never played — lost.
 */
class WorkerHandlerIT {

    private static final double SCALE = 10;

    @Test
    @Timeout(120)
    void aWorkerPlaysItsSliceAndTheShapersEventsCompleteIt(@TempDir Path dir) throws Exception {
        Scenario scenario = TestRuns.burst(10);
        RunSchedule schedule = RunSchedule.of(scenario, 42);
        LocalClock clock = LocalClock.scaled(SCALE);
        ModelCatalog catalog = ModelCatalog.of(List.of(ModelConfig.of("nova-lite", "amazon.nova-lite-v1:0",
                scenario.quota())));
        List<String> events = new CopyOnWriteArrayList<>();
        DirectoryObjectStore store = new DirectoryObjectStore(dir);
        try (BedrockSimulator direct = simulator(catalog, clock);
             BedrockSimulator shaperBedrock = simulator(catalog, clock);
             LocalRuntime runtime = LocalRuntime.builder().catalog(catalog).bedrockEndpoint(shaperBedrock.endpoint())
                     .clock(clock).events((type, detail) -> events.add(detail)).build();
             LocalServer server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             ShaperClient shaper = ShaperClient.create(server.baseUri())) {
            long start = clock.nowMillis() + Math.round(3_000 * SCALE);
            RunManifest manifest = RunManifest.of(TestRuns.RUN_ID, RunManifest.AWS, scenario, 42,
                    List.of(ArmKind.DIRECT, ArmKind.SHAPER), "nova-lite", "amazon.nova-lite-v1:0", SCALE, start, 2,
                    600_000L, start + schedule.lastArrivalMillis() + 600_000, null, schedule.size());
            manifest.write(store);
            WorkerEnvironment environment = new WorkerEnvironment() {
                @Override
                public ObjectStore run(String runId) {
                    return store;
                }

                @Override
                public BedrockRuntimeClientBuilder bedrock() {
                    return BedrockRuntimeClient.builder().endpointOverride(direct.endpoint()).region(Region.US_EAST_1)
                            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t")));
                }

                @Override
                public ShaperClient shaper() {
                    return shaper;
                }

                @Override
                public LocalClock clock() {
                    return clock;
                }
            };
            SliceItem item = new SliceItem(0, 2, 0, 0, 600_000, Instant.ofEpochMilli(start).toString(),
                    start + 600_000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();

            new WorkerHandler(environment).handleRequest(new ByteArrayInputStream(LoadTestJson.line(
                    new SliceTask(TestRuns.RUN_ID, item)).getBytes(StandardCharsets.UTF_8)), out, null);

            JsonNode result = LoadTestJson.tree(out.toString(StandardCharsets.UTF_8));
            assertThat(result.path("sent").asInt()).isEqualTo(5);
            assertThat(result.path("unfinished").asInt()).isZero();
            List<OutcomeLine> lines = lines(store);
            assertThat(lines).filteredOn(line -> line.arm().equals("direct")).hasSize(5)
                    .allMatch(OutcomeLine::isTerminal).allMatch(line -> line.index() % 2 == 0)
                    .allMatch(line -> line.bedrockCalls() == 1);
            assertThat(lines).filteredOn(line -> line.arm().equals("shaper")).hasSize(5)
                    .allMatch(line -> line.status() == OutcomeStatus.SUBMITTED);
            assertThat(direct.calls()).isEqualTo(5);

            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> events.size() >= 5);
            new OutcomeRecorderHandler(runId -> store).record(sqsBatch(events));
            Map<String, Object> reconciled = new ReconcileHandler(runId -> store, clock::nowMillis)
                    .reconcile(TestRuns.RUN_ID);

            assertThat(reconciled).containsEntry("complete", false).containsEntry("lost", 10L);
            String summary = new String(store.get(RunLayout.SUMMARY).orElseThrow(), StandardCharsets.UTF_8);
            JsonNode arms = LoadTestJson.tree(summary).path("arms");
            assertThat(arms.path("shaper").path("succeeded").asInt()).isEqualTo(5);
            assertThat(arms.path("shaper").path("lost").asInt()).isEqualTo(5);
            assertThat(arms.path("direct").path("lost").asInt()).isEqualTo(5);
            assertThat(shaperBedrock.throttles()).isZero();
        }
    }

    private static BedrockSimulator simulator(ModelCatalog catalog, LocalClock clock) {
        return BedrockSimulator.builder().catalog(catalog).clock(clock.asClock()).latencyScale(1 / SCALE)
                .defaultOutputTokens(200).build().start();
    }

    private static List<OutcomeLine> lines(ObjectStore store) {
        List<OutcomeLine> lines = new ArrayList<>();
        for (String key : store.list(RunLayout.OUTCOMES)) {
            for (String text : new String(store.get(key).orElseThrow(), StandardCharsets.UTF_8).split("\n")) {
                lines.add(LoadTestJson.read(text, OutcomeLine.class));
            }
        }
        return lines;
    }

    /** The events as EventBridge puts them on the queue: each SQS body is the event envelope. */
    private static JsonNode sqsBatch(List<String> details) {
        ObjectNode batch = LoadTestJson.MAPPER.createObjectNode();
        ArrayNode records = batch.putArray("Records");
        for (String detail : details) {
            ObjectNode envelope = LoadTestJson.MAPPER.createObjectNode().put("detail-type", "Shaped request finished");
            envelope.set("detail", LoadTestJson.tree(detail));
            records.addObject().put("body", LoadTestJson.line(envelope));
        }
        assertThat(RequestIds.parse(LoadTestJson.tree(details.get(0)).path("requestId").asText())).isPresent();
        return batch;
    }
}
