package dev.trafficshaper.loadtest.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.simulator.provider.Leniency;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** What the demo prints and writes: the header that states the scaling, the table, {@code result.json}. */
public final class DemoReport {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private DemoReport() {
    }

    /** States exactly what is sent against what, on what clock, next to the seed experiment it scales. */
    public static String header(DemoSettings s) {
        double target = targetUtilization(s);
        double shaperSeconds = s.burstMinutesOfQuota() * 60 / target;
        // With headroom on, a full bucket's bank (a target minute) goes beside the window once.
        double bankedSeconds = Math.max(0, shaperSeconds - 60);
        return String.format(Locale.ROOT, """
                Traffic shaper demo: the seed burst, scaled, through real HTTP and the real AWS SDK
                  scaled: %,d requests × ~%s tokens against %s TPM (%.2f minutes of quota), arriving within %s s;
                          the seed burst is 1,000 × 18.5k at 4M TPM (%.2f minutes of quota, within 30 s)
                  clock:  %s
                  meter:  %s, %s
                  calls:  %s
                  arms:   direct, no retry | direct, retry + jitter (4 attempts, full jitter 1/2/4 s) | shaper (local
                          runtime over HTTP, Java client); all at once, each against its own Bedrock simulator
                  the shaper's target is %.0f%% of the quota per minute: %.0f s (%.0f s of wall time) at that pace,
                          or %.0f s (%.0f s) with a full bucket's banked minute spent beside it (headroom,
                          which also lifts the target towards the quota while the meter takes it)
                """, s.requests(), compact(s.tokensPerRequest()), compactQuota(s.quotaTpm()),
                s.burstMinutesOfQuota(), trim(s.arrivalWindow().toMillis() / 1_000.0),
                DemoSettings.seedBurstMinutesOfQuota(), describeClock(s.timeScale()),
                s.quotaModel().wireName().replace('-', ' '), describe(s.leniency()), describe(s), 100 * target,
                shaperSeconds, shaperSeconds / s.timeScale(), bankedSeconds, bankedSeconds / s.timeScale());
    }

    static String describeClock(double timeScale) {
        if (timeScale == 1.0) {
            return "the wall clock: quotas per real minute, nothing runs faster than real time";
        }
        return String.format(Locale.ROOT, "every clock of the run (quota meters, pacer, generation time, retry backoff,"
                + " arrivals)%n          runs %s× faster than the wall: a quota minute lasts %s s; times below are on"
                + " this clock", trim(timeScale), trim(60 / timeScale));
    }

    /** The comparison table, one row per arm. */
    public static String table(DemoResult result) {
        StringBuilder out = new StringBuilder();
        String header = String.format(Locale.ROOT, "%-24s %8s %10s %10s %8s %8s %17s %8s%n", "arm", "success",
                "throttles", "API calls", "p50 s", "p99 s", "delivered tokens", "done s");
        out.append(header);
        out.append("-".repeat(header.length() - 1)).append('\n');
        for (ArmResult r : result.arms()) {
            out.append(String.format(Locale.ROOT, "%-24s %7.1f%% %,10d %,10d %8.1f %8.1f %,17d %8.1f%n",
                    r.arm().label(), 100 * r.successRate(), r.throttles(), r.apiCalls(), r.latencyP50Ms() / 1_000.0,
                    r.latencyP99Ms() / 1_000.0, r.deliveredTokens(), r.doneSeconds()));
        }
        return out.toString();
    }

    /** A few lines under the table: calls per request, the shaper's use of the quota, the wall time. */
    public static String summary(DemoResult result) {
        StringBuilder out = new StringBuilder();
        long quota = result.settings().quotaTpm();
        for (ArmResult r : result.arms()) {
            if (r.arm() == Arm.SHAPER) {
                out.append(String.format(Locale.ROOT, "  shaper: %.2f API calls per request; delivered %.0f%% of the"
                        + " quota per minute over its %.0f s%n", ratio(r), 100 * r.utilization(quota),
                        r.doneSeconds()));
            } else {
                out.append(String.format(Locale.ROOT, "  %s: %.2f API calls per request; %,d of %,d requests lost%n",
                        r.arm().label(), ratio(r), r.failed(), r.requests()));
            }
            r.error().ifPresent(e -> out.append("    first failure other than a throttle: ").append(e).append('\n'));
        }
        out.append(String.format(Locale.ROOT, "  the run took %.0f s on the demo clock, %.0f s of wall time%n",
                result.burstSeconds(), result.wallSeconds()));
        return out.toString();
    }

    public static String json(DemoResult result) {
        DemoSettings s = result.settings();
        ObjectNode root = JSON.createObjectNode();
        root.put("demo", "seed-burst, scaled");
        ObjectNode scaled = root.putObject("scaled");
        scaled.put("requests", s.requests());
        scaled.put("meanInputTokens", s.meanInputTokens());
        scaled.put("inputStddevTokens", s.inputStddevTokens());
        scaled.put("outputTokens", s.outputTokens());
        scaled.put("maxTokens", s.maxTokens());
        scaled.put("tokensPerRequest", s.tokensPerRequest());
        scaled.put("quotaTpm", s.quotaTpm());
        scaled.put("burstMinutesOfQuota", round(s.burstMinutesOfQuota(), 3));
        scaled.put("arrivalWindowSeconds", s.arrivalWindow().toMillis() / 1_000.0);
        scaled.put("quotaModel", s.quotaModel().wireName());
        ObjectNode leniency = scaled.putObject("leniency");
        leniency.put("burstAllowance", s.leniency().burstAllowance());
        leniency.put("throttledChargeFactor", s.leniency().throttledChargeFactor());
        leniency.put("refundAtSettlement", s.leniency().refundAtSettlement());
        ObjectNode latency = scaled.putObject("latency");
        latency.put("timeToFirstTokenMillis", s.latency().timeToFirstTokenMillis());
        latency.put("millisPerOutputToken", s.latency().millisPerOutputToken());
        latency.put("jitter", s.latency().jitter());
        latency.put("scale", s.latencyScale());
        scaled.put("timeScale", s.timeScale());
        scaled.put("pollIntervalWallMillis", s.pollInterval().toMillis());
        scaled.put("seed", s.seed());
        ObjectNode seed = root.putObject("seedBurst");
        seed.put("requests", DemoSettings.SEED_REQUESTS);
        seed.put("tokensPerRequest", DemoSettings.SEED_TOKENS_PER_REQUEST);
        seed.put("quotaTpm", DemoSettings.SEED_QUOTA_TPM);
        seed.put("burstMinutesOfQuota", round(DemoSettings.seedBurstMinutesOfQuota(), 3));
        seed.put("arrivalWindowSeconds", DemoSettings.SEED_ARRIVAL_WINDOW.toSeconds());
        root.put("timesAre", "on the demo clock, which runs timeScale times faster than the wall, except wallSeconds"
                + " and pollIntervalWallMillis");
        root.put("burstSeconds", round(result.burstSeconds(), 1));
        root.put("wallSeconds", round(result.wallSeconds(), 1));
        root.put("timedOut", result.timedOut());
        result.shaperShortfall().ifPresentOrElse(problem -> root.put("shaperShortfall", problem),
                () -> root.putNull("shaperShortfall"));
        ArrayNode arms = root.putArray("arms");
        for (ArmResult r : result.arms()) {
            ObjectNode node = arms.addObject();
            node.put("arm", r.arm().key());
            node.put("label", r.arm().label());
            node.put("requests", r.requests());
            node.put("succeeded", r.succeeded());
            node.put("failed", r.failed());
            node.put("successRate", round(r.successRate(), 4));
            node.put("throttles", r.throttles());
            node.put("apiCalls", r.apiCalls());
            node.put("latencyP50Ms", r.latencyP50Ms());
            node.put("latencyP99Ms", r.latencyP99Ms());
            node.put("deliveredTokens", r.deliveredTokens());
            node.put("doneSeconds", round(r.doneSeconds(), 1));
            node.put("utilization", round(r.utilization(s.quotaTpm()), 4));
            ArrayNode perMinute = node.putArray("deliveredTokensPerMinuteBy10s");
            for (long v : r.deliveredPerTenSeconds()) {
                perMinute.add(v * (60_000 / DemoRun.BUCKET_MILLIS));
            }
            r.error().ifPresentOrElse(e -> node.put("firstError", e), () -> node.putNull("firstError"));
        }
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void writeJson(Path file, DemoResult result) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, json(result));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static String describe(DemoSettings s) {
        String latency = String.format(Locale.ROOT, "%d ms to first token + %s ms per output token (±%.0f%%),"
                        + " %d output tokens, maxTokens %,d", s.latency().timeToFirstTokenMillis(),
                trim(s.latency().millisPerOutputToken()), 100 * s.latency().jitter(), s.outputTokens(), s.maxTokens());
        return s.latencyScale() == 1.0 ? latency : latency + String.format(Locale.ROOT, "; waits scaled × %s",
                trim(s.latencyScale()));
    }

    private static String trim(double value) {
        if (value == Math.rint(value)) {
            return Long.toString((long) value);
        }
        return String.format(Locale.ROOT, "%.2f", value).replaceAll("0+$", "");
    }

    static String describe(Leniency leniency) {
        if (leniency.equals(BuiltInScenarios.SEED_CALIBRATION)) {
            return "the seed calibration: burst allowance 5.5, a throttled call costs 2× its reservation";
        }
        if (leniency.equals(Leniency.STRICT)) {
            return "strict: holds one minute of quota, no burst allowance, throttled calls cost nothing";
        }
        return String.format(Locale.ROOT, "burst allowance %.2f, throttled charge factor %.2f%s",
                leniency.burstAllowance(), leniency.throttledChargeFactor(),
                leniency.refundAtSettlement() ? ", refunds at settlement" : "");
    }

    private static double targetUtilization(DemoSettings settings) {
        return DemoRun.catalog(settings).require(DemoRun.MODEL_KEY).pacer().targetUtilization();
    }

    private static double ratio(ArmResult r) {
        return r.requests() == 0 ? 0 : (double) r.apiCalls() / r.requests();
    }

    private static String compact(long tokens) {
        if (tokens >= 1_000 && tokens % 100 == 0) {
            return String.format(Locale.ROOT, "%.1fk", tokens / 1_000.0).replace(".0k", "k");
        }
        return String.format(Locale.ROOT, "%,d", tokens);
    }

    private static String compactQuota(long tpm) {
        if (tpm >= 1_000_000 && tpm % 100_000 == 0) {
            return String.format(Locale.ROOT, "%.1fM", tpm / 1_000_000.0).replace(".0M", "M");
        }
        return String.format(Locale.ROOT, "%,d", tpm);
    }

    private static double round(double value, int places) {
        double scale = Math.pow(10, places);
        return Math.round(value * scale) / scale;
    }
}
