package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.sim.RunMetrics;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one arm of a run measured, from its reconciled requests — the figures {@code simulate}
 * prints for a strategy, so the two can stand side by side.
 *
 * <p>Latency is scheduled arrival to final outcome (open-loop: a request that waited in a client
 * or a queue is charged for it). Percentiles come from one histogram of every request's raw
 * latency, whatever worker sent it; nothing is averaged across workers. Lost requests have no
 * latency and count as neither success nor failure.
 *
 * <p>The send lag is how late a request left its worker after its scheduled instant; a generator
 * short of CPU spreads a burst out, and the report says so.
 *
 * <p>Delivered tokens are the quota-charged tokens of successful requests (input, cache writes
 * and output × burndown; cache reads are free), booked when their successful call began. The
 * utilization divides them by the quota over the arm's busy time, from the first arrival to the
 * start of the last successful call, the simulator's measure for a strategy without a backlog.
 */
public record ArmMeasurement(
        ArmKind arm,
        long requests,
        long succeeded,
        long failed,
        long lost,
        long throttles,
        long bedrockCalls,
        long latencyP50Ms,
        long latencyP95Ms,
        long latencyP99Ms,
        double drainSeconds,
        double utilization,
        long deliveredTokens,
        long sendLagP99Ms,
        long maxSendLagMillis,
        Map<String, Long> failureReasons,
        long[] deliveredPerMinute,
        long[] deliveredPerTenSeconds,
        long[] queueDepthPerSecond) {

    public double successRate() {
        return requests == 0 ? 0 : (double) succeeded / requests;
    }

    public double callsPerRequest() {
        return requests == 0 ? 0 : (double) bedrockCalls / requests;
    }

    public static ArmMeasurement of(ArmKind arm, List<ReconciledRequest> requests, Quota quota) {
        QuotaDimension primary = RunMetrics.primaryDimension(quota);
        Histogram latencies = new Histogram(3);
        Histogram lags = new Histogram(3);
        long succeeded = 0;
        long failed = 0;
        long lost = 0;
        long throttles = 0;
        long calls = 0;
        long firstArrival = Long.MAX_VALUE;
        long lastFinish = Long.MIN_VALUE;
        long lastSuccessfulCall = Long.MIN_VALUE;
        long maxLag = 0;
        long[] charges = new long[QuotaDimension.values().length];
        Buckets perMinute = new Buckets(60_000);
        Buckets perTen = new Buckets(10_000);
        List<long[]> waits = new ArrayList<>();
        Map<String, Long> reasons = new TreeMap<>();
        for (ReconciledRequest r : requests) {
            firstArrival = Math.min(firstArrival, r.scheduledMillis());
            throttles += r.throttles();
            calls += r.bedrockCalls();
            if (r.sentMillis() != null) {
                long lag = Math.max(0, r.sentMillis() - r.scheduledMillis());
                lags.recordValue(lag);
                maxLag = Math.max(maxLag, lag);
            }
            if (r.lost()) {
                lost++;
                continue;
            }
            latencies.recordValue(r.latencyMillis());
            lastFinish = Math.max(lastFinish, r.finishedMillis());
            Long firstCall = r.firstCallMillis();
            waits.add(new long[] {r.scheduledMillis(), firstCall != null ? firstCall : r.finishedMillis()});
            if (!r.succeeded()) {
                failed++;
                reasons.merge(r.reason() == null ? String.valueOf(r.status()) : r.reason(), 1L, Long::sum);
                continue;
            }
            succeeded++;
            Charge charge = Charge.settlement(quota, new TokenUsage(r.inputTokens(), r.outputTokens(),
                    r.cacheReadTokens(), r.cacheWriteTokens()));
            for (QuotaDimension dimension : QuotaDimension.values()) {
                charges[dimension.ordinal()] += charge.amount(dimension);
            }
            long callStart = r.lastCallMillis() != null ? r.lastCallMillis() : r.finishedMillis();
            lastSuccessfulCall = Math.max(lastSuccessfulCall, callStart);
            perMinute.add(callStart, charge.amount(primary));
            perTen.add(callStart, charge.amount(primary));
        }
        double drain = lastFinish == Long.MIN_VALUE ? 0 : Math.round((lastFinish - firstArrival) / 100.0) / 10.0;
        double utilization = lastSuccessfulCall > firstArrival
                ? share(quota, charges, lastSuccessfulCall - firstArrival) : 0;
        return new ArmMeasurement(arm, requests.size(), succeeded, failed, lost, throttles, calls,
                percentile(latencies, 50), percentile(latencies, 95), percentile(latencies, 99), drain,
                Math.round(utilization * 10_000) / 10_000.0,
                charges[primary.ordinal()], percentile(lags, 99), maxLag, reasons, perMinute.values(), perTen.values(), depth(waits));
    }

    private static long percentile(Histogram latencies, double percentile) {
        return latencies.getTotalCount() == 0 ? 0 : latencies.getValueAtPercentile(percentile);
    }

    /** The highest share of a metered token dimension's quota the charges reached over {@code millis}. */
    private static double share(Quota quota, long[] charges, long millis) {
        double best = 0;
        for (QuotaDimension dimension : QuotaDimension.values()) {
            long limit = quota.limit(dimension);
            if (limit > 0 && dimension != QuotaDimension.REQUESTS) {
                best = Math.max(best, charges[dimension.ordinal()] / (limit * millis / 60_000.0));
            }
        }
        return best;
    }

    /** The most requests waiting for their first call in each second: [arrival, first call). */
    private static long[] depth(List<long[]> waits) {
        List<long[]> events = new ArrayList<>();
        for (long[] wait : waits) {
            if (wait[1] > wait[0]) {
                events.add(new long[] {wait[0], 1});
                events.add(new long[] {wait[1], -1});
            }
        }
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        Buckets most = new Buckets(1_000);
        long waiting = 0;
        for (long[] event : events) {
            waiting += event[1];
            most.max(Math.max(0, event[0]), waiting);
        }
        return most.values();
    }

    /** As the simulator's result, for its charts; lost requests are counted as failed there. */
    public StrategyResult asStrategyResult(String label) {
        return new StrategyResult(label, requests, succeeded, failed + lost, throttles, bedrockCalls, 0, latencyP50Ms,
                latencyP99Ms, drainSeconds, utilization, deliveredPerMinute, deliveredPerTenSeconds,
                queueDepthPerSecond, latencyP50Ms, latencyP99Ms, List.of(), List.of(), null, Map.of());
    }

    /** Values per fixed-width bucket from time 0; times before 0 go to the first bucket. */
    private static final class Buckets {
        private final long width;
        private long[] values = new long[16];
        private int size;

        Buckets(long width) {
            this.width = width;
        }

        void add(long atMillis, long amount) {
            int bucket = bucket(atMillis);
            values[bucket] += amount;
        }

        void max(long atMillis, long value) {
            int bucket = bucket(atMillis);
            values[bucket] = Math.max(values[bucket], value);
        }

        private int bucket(long atMillis) {
            int bucket = (int) (Math.max(0, atMillis) / width);
            while (bucket >= values.length) {
                values = Arrays.copyOf(values, values.length * 2);
            }
            size = Math.max(size, bucket + 1);
            return bucket;
        }

        long[] values() {
            return Arrays.copyOf(values, size);
        }
    }
}
