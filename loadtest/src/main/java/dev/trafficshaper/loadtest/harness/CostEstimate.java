package dev.trafficshaper.loadtest.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What an AWS run will cost, printed before it starts, from the schedule and the plan alone. Every
 * figure is an upper bound where the outcome is unknown: Bedrock is priced as if every request of
 * every arm succeeded once (throttled calls are not billed), workers as if each ran its whole slot,
 * the reconcile loop as if it waited the whole drain time. List prices of us-east-1 (arm64 Lambda),
 * before any free tier; the shaper's own bill is docs/cost-model.md's ~$63 per million requests (counted).
 */
public record CostEstimate(List<Line> lines) {

    /** One priced item. */
    public record Line(String item, String quantity, double usd) {
    }

    /** Unit prices in USD; Bedrock's depend on the model and are the user's to give. */
    public record Prices(double bedrockInputPerMillion, double bedrockOutputPerMillion, double lambdaGbSecond,
                         double lambdaPerMillionRequests, double stepFunctionsPerThousandTransitions,
                         double s3PutPerThousand, double s3GetPerThousand, double sqsPerMillionRequests,
                         double shaperPerMillionRequests) {

        /** Amazon Nova Lite on demand ($0.06 / $0.24 per million input / output tokens) and us-east-1 list prices. */
        public static Prices defaults(double inputPerMillion, double outputPerMillion) {
            return new Prices(inputPerMillion, outputPerMillion, 0.0000133334, 0.20, 0.025, 0.005, 0.0004, 0.40,
                    62.6);
        }
    }

    static final double RECONCILE_SECONDS = 10;
    static final int RECONCILE_MEMORY_MB = 2_048;
    static final long OUTCOME_FLUSH_SECONDS = 10;
    static final int EVENTS_PER_RECORDER_BATCH = 10;

    public CostEstimate {
        lines = List.copyOf(lines);
    }

    public static CostEstimate of(RunSchedule schedule, List<ArmKind> arms, WindowPlan plan, int workerMemoryMb,
                                  double drainMinutes, Prices prices) {
        List<Line> lines = new ArrayList<>();
        long input = 0;
        long output = 0;
        for (ScheduledRequest request : schedule.requests()) {
            input += request.inputTokens();
            output += Math.min(request.outputTokens(), request.maxTokens());
        }
        for (ArmKind arm : arms) {
            lines.add(new Line("Bedrock tokens, " + arm.wireName(), String.format(Locale.ROOT, "%s in, %s out",
                    tokens(input), tokens(output)), input / 1e6 * prices.bedrockInputPerMillion()
                    + output / 1e6 * prices.bedrockOutputPerMillion()));
        }
        double gbSeconds = 0;
        long workerObjects = 0;
        int bedrockArms = (int) arms.stream().filter(ArmKind::callsBedrockDirectly).count()
                + (arms.contains(ArmKind.SHAPER) ? 1 : 0);
        for (SliceItem item : plan.items()) {
            double seconds = plan.itemSeconds(item);
            gbSeconds += seconds * workerMemoryMb / 1_024.0;
            workerObjects += (long) Math.ceil(seconds / OUTCOME_FLUSH_SECONDS) * bedrockArms;
        }
        int items = plan.items().size();
        lines.add(new Line("Lambda, workers", String.format(Locale.ROOT, "%d invocations, %,.0f GB-s", items,
                gbSeconds), gbSeconds * prices.lambdaGbSecond() + items / 1e6 * prices.lambdaPerMillionRequests()));
        long loops = (long) Math.ceil(drainMinutes * 2) + 1;
        double reconcileGbSeconds = loops * RECONCILE_SECONDS * RECONCILE_MEMORY_MB / 1_024.0;
        lines.add(new Line("Lambda, reconcile step", String.format(Locale.ROOT, "up to %d invocations", loops),
                reconcileGbSeconds * prices.lambdaGbSecond() + loops / 1e6 * prices.lambdaPerMillionRequests()));
        long transitions = 6 + 3 * loops + 4L * items;
        lines.add(new Line("Step Functions", String.format(Locale.ROOT, "%,d state transitions", transitions),
                transitions / 1_000.0 * prices.stepFunctionsPerThousandTransitions()));
        long shaperRequests = arms.contains(ArmKind.SHAPER) ? schedule.size() : 0;
        long recorderObjects = (shaperRequests + EVENTS_PER_RECORDER_BATCH - 1) / EVENTS_PER_RECORDER_BATCH;
        long objects = workerObjects + recorderObjects + 3;
        long gets = loops * objects;
        lines.add(new Line("S3", String.format(Locale.ROOT, "%,d PUT, %,d GET", objects, gets),
                objects / 1_000.0 * prices.s3PutPerThousand() + gets / 1_000.0 * prices.s3GetPerThousand()));
        if (shaperRequests > 0) {
            lines.add(new Line("SQS and the outcome recorder", String.format(Locale.ROOT, "%,d messages",
                    shaperRequests), shaperRequests * 3 / 1e6 * prices.sqsPerMillionRequests()
                    + recorderObjects * 0.5 * prices.lambdaGbSecond()
                    + recorderObjects / 1e6 * prices.lambdaPerMillionRequests()));
            lines.add(new Line("the shaper stack itself", String.format(Locale.ROOT, "%,d requests",
                    shaperRequests), shaperRequests / 1e6 * prices.shaperPerMillionRequests()));
        }
        return new CostEstimate(lines);
    }

    public double totalUsd() {
        return lines.stream().mapToDouble(Line::usd).sum();
    }

    public String render(Prices prices) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "cost estimate (upper bounds at us-east-1 list"
                        + " prices, before free tiers; Bedrock at $%s / $%s per million input / output tokens):%n",
                price(prices.bedrockInputPerMillion()), price(prices.bedrockOutputPerMillion())));
        for (Line line : lines) {
            out.append(String.format(Locale.ROOT, "  %-32s %-32s %10s%n", line.item(), line.quantity(),
                    dollars(line.usd())));
        }
        out.append(String.format(Locale.ROOT, "  %-32s %-32s %10s%n", "total", "", dollars(totalUsd())));
        return out.toString();
    }

    private static String tokens(long count) {
        return count >= 1_000_000 ? String.format(Locale.ROOT, "%.1fM", count / 1e6)
                : String.format(Locale.ROOT, "%,d", count);
    }

    private static String price(double value) {
        return String.format(Locale.ROOT, "%.4f", value).replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    private static String dollars(double usd) {
        return usd < 0.01 ? "< $0.01" : String.format(Locale.ROOT, "$%,.2f", usd);
    }
}
