package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import dev.trafficshaper.functions.cost.CostModel;
import dev.trafficshaper.functions.cost.CostModelDoc;
import dev.trafficshaper.functions.cost.CountedRequest;
import dev.trafficshaper.testing.AwsCallLedger;
import dev.trafficshaper.testing.StateMachineHarness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Counts what a request of the seed's shape costs in AWS calls: a ~20 KB prompt, a ~4 KB answer, a
 * webhook to a 127.0.0.1 receiver and one status GET, on the happy path, through the real handlers
 * and state machine ({@link CountedLifecycle}). Requests run one after another after a warm-up
 * request (which pays the once-per-environment reads, e.g. the webhook secret), each until its
 * webhook has arrived and the drainer has stopped, so every count is a whole number per request.
 *
 * <p>It writes the counts to {@code functions/target/cost/counted.md} and fails when
 * docs/cost-model.md's counted section differs; run with {@code -Dcost.update=true} to rewrite that
 * section and the per-million table from the counts instead. The drainer's own calls depend on time
 * and load (it polls while work is outstanding), so they are written beside the counts and priced by
 * {@link CostModel}'s load assumptions, not held to the doc.
 */
class LifecycleCostIT {

    static final int REQUESTS = 4;
    static final String MODEL = "nova-lite";
    private static final String MODELS = """
            {"models": {
              "nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                            "maxTokens": 2000, "shards": 4, "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600}
            }}""";
    /** ~20 KB of prompt text, as the seed's ~18.5k-token requests carry. */
    static final int PROMPT_CHARS = 20_000;
    /** ~4 KB of answer: 900 four-character tokens. */
    static final long OUTPUT_TOKENS = 900;

    @Test
    void aSeedShapedRequestMakesTheCallsTheCostModelPrices() throws Exception {
        Map<String, Double> drainer;
        CountedRequest counted;
        long liveHeapMb;
        try (CountedLifecycle lifecycle = new CountedLifecycle(MODELS, MODEL, OUTPUT_TOKENS, 20);
             LogVolume logs = new LogVolume()) {
            long run = System.nanoTime() % 1_000_000_000_000L;
            runOne(lifecycle, requestId(run, REQUESTS));
            lifecycle.ledger().reset();
            long bedrockBefore = lifecycle.bedrockCalls();
            double transitions = 0;
            long logBytes = 0;
            for (int i = 0; i < REQUESTS; i++) {
                String id = requestId(run, i);
                transitions += runOne(lifecycle, id);
                logBytes += logs.bytes(id);
            }
            assertThat(lifecycle.bedrockCalls() - bedrockBefore).isEqualTo(REQUESTS);
            counted = perRequest(lifecycle.ledger(), transitions / REQUESTS, (double) logBytes / REQUESTS);
            drainer = drainerCalls(lifecycle.ledger());
            liveHeapMb = liveHeapMegabytes();
        }

        Path out = Path.of("target", "cost");
        Files.createDirectories(out);
        Files.writeString(out.resolve("counted.md"), counted.render() + "\n\nDrainer (not held, per request at this"
                + " IT's load): " + drainer + "\n\nLive heap after a GC, every function's composition root in this JVM: "
                + liveHeapMb + " MB\n", StandardCharsets.UTF_8);
        Path doc = docsFile();
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        if (Boolean.getBoolean("cost.update")) {
            Files.writeString(doc, CostModelDoc.regenerate(text, counted), StandardCharsets.UTF_8);
        } else {
            assertThat(CountedRequest.parse(text).render())
                    .as("docs/cost-model.md's counted calls; re-run LifecycleCostIT with -Dcost.update=true to"
                            + " regenerate them (and the per-million table), then review the diff")
                    .isEqualTo(counted.render());
        }
        assertThat(counted.transitions()).isPositive();
        assertThat(counted.calls("Sfn", "StartExecution")).isEqualTo(1);
    }

    /** One request, end to end; returns its state transitions. */
    private static int runOne(CountedLifecycle lifecycle, String requestId) {
        String id = lifecycle.submit(body(requestId, lifecycle.webhookPort()));
        StateMachineHarness.Result result = lifecycle.awaitExecution(id);
        assertThat(result.status()).as(result.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        lifecycle.awaitWebhook(id);
        APIGatewayProxyResponseEvent status = lifecycle.status(id);
        assertThat(status.getStatusCode()).isEqualTo(200);
        assertThat(ApiEvents.json(status.getBody()).path("response").path("output").path("message")
                .path("content").path(0).path("text").asText().length()).isGreaterThan(3_000);
        lifecycle.awaitDrainerIdle(MODEL);
        return result.statesEntered().size();
    }

    /** What the JVM holds once garbage is collected: the bound a function's memory setting must clear. */
    private static long liveHeapMegabytes() {
        java.lang.management.MemoryMXBean memory = java.lang.management.ManagementFactory.getMemoryMXBean();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed() / (1024 * 1024);
    }

    /** Ids of one length, so that the log lines that carry them are of one length too. */
    private static String requestId(long run, int index) {
        return String.format(java.util.Locale.ROOT, "cost-%012d-%d", run, index);
    }

    private static CountedRequest perRequest(AwsCallLedger ledger, double transitions, double logBytes) {
        List<CountedRequest.Row> rows = new ArrayList<>();
        ledger.tallies().forEach((call, tally) -> {
            if (!call.caller().equals(CountedLifecycle.QUEUE_PROCESSOR) || CostModel.PER_ADMISSION_DRAINER_CALLS
                    .contains(call.service() + " " + call.operation())) {
                rows.add(new CountedRequest.Row(call.caller(), call.service(), call.operation(),
                        (double) tally.calls() / REQUESTS, (double) tally.writeUnits() / REQUESTS,
                        tally.readHalfUnits() / 2.0 / REQUESTS));
            }
        });
        Map<String, Double> invocations = new LinkedHashMap<>();
        ledger.invocations().forEach((function, count) -> {
            if (!function.equals(CountedLifecycle.QUEUE_PROCESSOR)) {
                invocations.put(function, (double) count / REQUESTS);
            }
        });
        return new CountedRequest(rows, invocations, transitions, logBytes);
    }

    private static Map<String, Double> drainerCalls(AwsCallLedger ledger) {
        Map<String, Double> calls = new LinkedHashMap<>();
        ledger.tallies().forEach((call, tally) -> {
            if (call.caller().equals(CountedLifecycle.QUEUE_PROCESSOR)) { // the drain loop; its inline calls are per request
                calls.put(call.service() + " " + call.operation(), (double) tally.calls() / REQUESTS);
            }
        });
        calls.put("invocations", ledger.invocations().getOrDefault(CountedLifecycle.QUEUE_PROCESSOR, 0L)
                / (double) REQUESTS);
        return calls;
    }

    private static String body(String requestId, int webhookPort) {
        String prompt = "Summarise the following notes. " + "lorem ipsum dolor sit amet ".repeat(PROMPT_CHARS / 27);
        return """
                {"requestId": "%s", "model": "%s", "deadlineSeconds": 60,
                 "callbackUrl": "http://127.0.0.1:%d/hook",
                 "converse": {"messages": [{"role": "user", "content": [{"text": "%s"}]}],
                              "inferenceConfig": {"maxTokens": 1000}}}"""
                .formatted(requestId, MODEL, webhookPort, prompt);
    }

    static Path docsFile() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs").resolve("cost-model.md"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("docs/cost-model.md not found above the working directory");
        }
        return dir.resolve("docs").resolve("cost-model.md");
    }
}
