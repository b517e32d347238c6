package dev.trafficshaper.loadtest.aws;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.OutcomeLine;
import dev.trafficshaper.loadtest.harness.RequestIds;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.loadtest.harness.ShaperResults;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Records the shaper arm's terminal outcomes on AWS. The shaper publishes one event per finished
 * request on its bus; a rule sends the load test's (request ids {@code lt-...}) to a queue, and
 * this function takes them from the queue in batches and writes each batch as one outcome object
 * per run ({@code runs/<id>/outcomes/shaper/events-<uuid>.jsonl}). Objects are never overwritten, so
 * a batch delivered twice only adds duplicates, which the report drops.
 */
public final class OutcomeRecorderHandler implements RequestStreamHandler {

    private final Function<String, ObjectStore> runs;

    public OutcomeRecorderHandler() {
        AwsWorkerEnvironment environment = AwsWorkerEnvironment.fromSystem();
        this.runs = environment::run;
    }

    public OutcomeRecorderHandler(Function<String, ObjectStore> runs) {
        this.runs = runs;
    }

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        int recorded = record(LoadTestJson.tree(new String(input.readAllBytes(), StandardCharsets.UTF_8)));
        output.write(("{\"recorded\":" + recorded + "}").getBytes(StandardCharsets.UTF_8));
    }

    /** Writes the batch's outcomes; returns how many lines it wrote. */
    int record(JsonNode sqsEvent) {
        Map<String, StringBuilder> byRun = new LinkedHashMap<>();
        int recorded = 0;
        for (JsonNode message : sqsEvent.path("Records")) {
            JsonNode event = LoadTestJson.tree(message.path("body").asText("{}"));
            Optional<OutcomeLine> line = ShaperResults.line(event.path("detail"), null, OutcomeLine.FROM_EVENT);
            if (line.isEmpty()) {
                continue;
            }
            String runId = RequestIds.parse(line.get().id()).orElseThrow().runId();
            byRun.computeIfAbsent(runId, id -> new StringBuilder()).append(LoadTestJson.line(line.get())).append('\n');
            recorded++;
        }
        byRun.forEach((runId, lines) -> runs.apply(runId).put(RunLayout.OUTCOMES + "shaper/events-"
                + UUID.randomUUID() + ".jsonl", lines.toString().getBytes(StandardCharsets.UTF_8)));
        return recorded;
    }
}
