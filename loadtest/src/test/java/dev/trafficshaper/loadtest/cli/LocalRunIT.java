package dev.trafficshaper.loadtest.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code run --local} end to end on a 10× clock: the shipped 4× burst (64 requests of ~18.5k tokens
 * within 15 s against a strict 300k TPM bucket) through direct, retry-jitter and the shaper, over
 * real HTTP with the real SDK, two workers; then {@code report DIR} on the run's directory.
 */
class LocalRunIT {

    private static final int REQUESTS = 64;

    @Test
    @Timeout(300)
    void theShaperDeliversAFourTimesBurstWithoutAThrottleWhileDirectClientsAreThrottled(@TempDir Path dir)
            throws Exception {
        Path run = dir.resolve("run");
        StringWriter printed = new StringWriter();
        int exit = cli(printed).execute("run", "--local", "--scenario", "scenarios/burst-4x-small.json",
                "--arms", "direct,retry-jitter,shaper", "--time-scale", "10", "--workers", "2", "--out",
                run.toString());

        assertThat(exit).as(printed.toString()).isZero();
        JsonNode result = new ObjectMapper().readTree(run.resolve("report/result.json").toFile());
        Map<String, JsonNode> measured = new HashMap<>();
        Map<String, JsonNode> predicted = new HashMap<>();
        result.path("arms").forEach(arm -> {
            measured.put(arm.path("arm").asText(), arm.path("measured"));
            predicted.put(arm.path("arm").asText(), arm.path("predicted"));
        });
        JsonNode provider = result.path("provider");
        for (String arm : new String[] {"direct", "retry-jitter", "shaper"}) {
            JsonNode m = measured.get(arm);
            assertThat(m.path("requests").asInt()).isEqualTo(REQUESTS);
            assertThat(m.path("lost").asInt()).as(arm).isZero();
            assertThat(m.path("succeeded").asInt() + m.path("failed").asInt()).isEqualTo(REQUESTS);
            // the harness's per-request counts add up to what each arm's Bedrock counted
            assertThat(m.path("bedrockCalls").asLong()).as(arm + " calls").isEqualTo(provider.path(arm).path("calls").asLong());
            assertThat(predicted.get(arm).path("requests").asInt()).isEqualTo(REQUESTS);
        }
        assertThat(measured.get("direct").path("throttles").asLong())
                .isEqualTo(provider.path("direct").path("throttles").asLong()).isPositive();
        assertThat(measured.get("retry-jitter").path("throttles").asLong())
                .isEqualTo(provider.path("retry-jitter").path("throttles").asLong()).isPositive();
        assertThat(measured.get("retry-jitter").path("bedrockCalls").asLong()).isGreaterThan(REQUESTS)
                .isLessThanOrEqualTo(4L * REQUESTS);

        JsonNode shaper = measured.get("shaper");
        assertThat(shaper.path("succeeded").asInt()).isEqualTo(REQUESTS);
        assertThat(shaper.path("successRate").asDouble()).isEqualTo(1.0);
        assertThat(provider.path("shaper").path("throttles").asLong()).isZero();
        assertThat(shaper.path("throttles").asLong()).isZero();
        assertThat(shaper.path("bedrockCalls").asLong()).isEqualTo(REQUESTS);
        // Above 1.0 only by the token bucket's banked minute, which headroom spends beside the window
        // after idle; the meter throttled none of it (above).
        assertThat(shaper.path("utilization").asDouble()).isGreaterThan(0.5).isLessThanOrEqualTo(2.0);

        StringWriter reported = new StringWriter();
        assertThat(cli(reported).execute("report", run.toString(), "--out", dir.resolve("again").toString())).isZero();
        assertThat(reported.toString()).contains("direct        measured", "retry-jitter  measured",
                "shaper        measured", "predicted", "difference", "lost (no terminal outcome): direct 0,"
                        + " retry-jitter 0, shaper 0", "calibration hint");
        assertThat(Files.readAllLines(dir.resolve("again/reconciled.jsonl"))).hasSize(3 * REQUESTS);
        assertThat(dir.resolve("again/delivered-per-minute.png")).isRegularFile();
    }

    private static CommandLine cli(StringWriter sink) {
        CommandLine cli = new CommandLine(new LoadTestCli());
        cli.setOut(new PrintWriter(sink, true));
        cli.setErr(new PrintWriter(sink, true));
        return cli;
    }
}
