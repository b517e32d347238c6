package dev.trafficshaper.loadtest.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.loadtest.cli.LoadTestCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The demo end to end, small and on a fast clock: real HTTP, the real SDK, every arm at once.
 * 12 requests of ~18.5k tokens arrive within 2 s against a strict 100k TPM bucket, more than twice
 * what it holds, so a direct client must be throttled while the shaper must not be.
 */
class DemoTest {

    private static final int REQUESTS = 12;

    @Test
    @Timeout(90)
    void overTheQuotaDirectClientsAreThrottledAndTheShaperDeliversEveryRequestWithoutAThrottle(@TempDir Path out)
            throws Exception {
        StringWriter printed = new StringWriter();
        CommandLine cli = new CommandLine(new LoadTestCli());
        cli.setOut(new PrintWriter(printed, true));
        cli.setErr(new PrintWriter(printed, true));

        int exit = cli.execute("demo", "--requests", "" + REQUESTS, "--quota-tpm", "100000", "--arrival-seconds", "2",
                "--burst-allowance", "1", "--throttled-charge-factor", "0", "--time-scale", "20",
                "--out", out.toString());

        assertThat(exit).as(printed.toString()).isZero();
        assertThat(printed.toString()).contains("scaled: 12 requests × ~18.5k tokens against 100,000 TPM",
                "the seed burst is 1,000 × 18.5k at 4M TPM", "runs 20× faster than the wall",
                "OK: every request through the shaper succeeded");
        byte[] png = Files.readAllBytes(out.resolve(DemoChart.FILE_NAME));
        assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        Map<String, JsonNode> arms = arms(result);

        JsonNode shaper = arms.get("shaper");
        assertThat(shaper.get("succeeded").asInt()).isEqualTo(REQUESTS);
        assertThat(shaper.get("throttles").asLong()).isZero();
        assertThat(shaper.get("apiCalls").asLong()).isEqualTo(REQUESTS);
        assertThat(shaper.get("firstError").isNull()).isTrue();
        // Every prompt counts as the input tokens drawn for it, and every call generates 500 tokens.
        long burstTokens = 0;
        for (Burst.Request request : Burst.generate(DemoSettings.builder().requests(REQUESTS).quotaTpm(100_000)
                .arrivalWindow(java.time.Duration.ofSeconds(2)).build()).requests()) {
            burstTokens += request.inputTokens() + 500;
        }
        assertThat(shaper.get("deliveredTokens").asLong()).isEqualTo(burstTokens);

        JsonNode noRetry = arms.get("direct-no-retry");
        assertThat(noRetry.get("throttles").asLong()).isPositive();
        assertThat(noRetry.get("apiCalls").asLong()).isEqualTo(REQUESTS);
        assertThat(noRetry.get("succeeded").asLong()).isEqualTo(REQUESTS - noRetry.get("throttles").asLong());
        assertThat(noRetry.get("deliveredTokens").asLong()).isLessThan(burstTokens);

        JsonNode retry = arms.get("direct-retry-jitter");
        assertThat(retry.get("throttles").asLong()).isPositive();
        assertThat(retry.get("apiCalls").asLong())
                .isEqualTo(retry.get("succeeded").asLong() + retry.get("throttles").asLong())
                .isGreaterThan(REQUESTS)
                .isLessThanOrEqualTo(REQUESTS * DirectArm.RETRY_ATTEMPTS);
        for (JsonNode arm : arms.values()) {
            assertThat(arm.get("succeeded").asInt() + arm.get("failed").asInt()).isEqualTo(REQUESTS);
            assertThat(arm.get("firstError").isNull()).as(arm.get("arm").asText()).isTrue();
        }
    }

    @Test
    void theDefaultsKeepTheSeedBurstsShapeWithFewerRequests() {
        DemoSettings defaults = DemoSettings.builder().build();

        assertThat(defaults.requests()).isEqualTo(140);
        assertThat(defaults.quotaTpm()).isEqualTo(560_000);
        assertThat(defaults.tokensPerRequest()).isEqualTo(18_500);
        assertThat(defaults.burstMinutesOfQuota()).isEqualTo(DemoSettings.seedBurstMinutesOfQuota());
        assertThat(defaults.arrivalWindow()).isEqualTo(DemoSettings.SEED_ARRIVAL_WINDOW);
        assertThat(DemoReport.header(defaults)).contains(
                "scaled: 140 requests × ~18.5k tokens against 560,000 TPM (4.63 minutes of quota), arriving within"
                        + " 30 s;",
                "the seed burst is 1,000 × 18.5k at 4M TPM (4.63 minutes of quota, within 30 s)",
                "runs 4× faster than the wall: a quota minute lasts 15 s",
                "the shaper's target is 95% of the quota per minute: 292 s (73 s of wall time) at that pace,",
                "or 232 s (58 s) with a full bucket's banked minute spent beside it");
    }

    @Test
    void promptsAreSizedToTheTokensDrawnForThem() {
        for (long tokens : new long[] {20, 1_000, 18_000, 18_601}) {
            // the simulator counts ceil(characters / 4) per text block plus 3 per message
            assertThat((Burst.prompt(tokens).length() + 3) / 4 + 3).isEqualTo(tokens);
        }
    }

    @Test
    void theRetryArmUsesTheSeedPolicyFourAttemptsWithFullJitterOfOneTwoAndFourSecondsOnTheDemoClock() {
        assertThat(DirectArm.seedRetryPolicy(4).maxAttempts()).isEqualTo(4);
        for (double timeScale : new double[] {1, 4}) {
            var backoff = DirectArm.fullJitter(timeScale);
            for (int attempt = 2; attempt <= 4; attempt++) {
                long wallCeiling = Math.round((1_000L << (attempt - 2)) / timeScale);
                long longest = 0;
                for (int draw = 0; draw < 500; draw++) {
                    long delay = backoff.computeDelay(attempt).toMillis();
                    assertThat(delay).isBetween(0L, wallCeiling);
                    longest = Math.max(longest, delay);
                }
                assertThat(longest).as("full jitter spreads up to the ceiling").isGreaterThan(wallCeiling * 3 / 4);
            }
        }
    }

    private static Map<String, JsonNode> arms(JsonNode root) {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        for (JsonNode arm : root.get("arms")) {
            byName.put(arm.get("arm").asText(), arm);
        }
        assertThat(new ArrayList<>(byName.keySet())).containsExactly("direct-no-retry", "direct-retry-jitter",
                "shaper");
        return byName;
    }
}
