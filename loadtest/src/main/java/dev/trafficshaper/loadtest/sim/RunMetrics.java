package dev.trafficshaper.loadtest.sim;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.pacing.Lane;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one strategy's run measured. Utilization counts the quota-charged tokens of successful calls
 * started while requests were waiting (queued or backing off), divided by the quota over that
 * backlogged time; a strategy that never holds requests back is measured over its active period
 * instead (first arrival to last successful call). It is reported per metered dimension (requests
 * per minute included: where RPM binds, that is the figure that matters), and {@code utilization}
 * is the highest share any dimension reached; the per-minute series is in the primary dimension
 * (TPM when metered, else output TPM, else input TPM).
 */
public final class RunMetrics {

    private final Quota quota;
    private final QuotaDimension primary;
    private long requests;
    private long succeeded;
    private long failed;
    private long throttled;
    private long apiCalls;
    private long requeues;
    private long[] latencies = new long[1_024];
    private int latencyCount;
    private long firstArrival = Long.MAX_VALUE;
    private long lastFinish = Long.MIN_VALUE;
    private long lastSuccessfulStart = Long.MIN_VALUE;
    /** By request index: when its latest call started, or -1. */
    private long[] lastCallStart = new long[0];
    private final Samples waits = new Samples();
    private final Map<Lane, Samples> waitsByLane = new TreeMap<>();
    private final Map<String, Samples> waitsByTenant = new TreeMap<>();

    private int waiting;
    private long backlogOpenedAt;
    private long backlogMillis;
    private final long[] backloggedCharges = new long[QuotaDimension.values().length];
    private final long[] allCharges = new long[QuotaDimension.values().length];

    private final TimeSeries deliveredPerMinute = new TimeSeries(60_000);
    private final TimeSeries deliveredPerTenSeconds = new TimeSeries(10_000);
    private final TimeSeries maxQueuePerSecond = new TimeSeries(1_000);

    public RunMetrics(Quota quota) {
        this.quota = quota;
        this.primary = primaryDimension(quota);
    }

    public static QuotaDimension primaryDimension(Quota quota) {
        if (quota.tpm() > 0) {
            return QuotaDimension.TOKENS;
        }
        return quota.outputTpm() > 0 ? QuotaDimension.OUTPUT_TOKENS : QuotaDimension.INPUT_TOKENS;
    }

    public void arrived(SimRequest request) {
        requests++;
        firstArrival = Math.min(firstArrival, request.arrivalMillis());
    }

    /** A request starts waiting for a send (queued, or backing off before a retry). */
    public void startedWaiting(long nowMillis) {
        if (waiting++ == 0) {
            backlogOpenedAt = nowMillis;
        }
        maxQueuePerSecond.max(nowMillis, waiting);
    }

    /**
     * A waiting request is sent (or gives up). Returns whether it left a backlog, which marks the
     * call it makes as spending backlogged quota.
     */
    public boolean stoppedWaiting(long nowMillis) {
        if (waiting <= 0) {
            throw new IllegalStateException("no request was waiting");
        }
        if (--waiting == 0) {
            backlogMillis += nowMillis - backlogOpenedAt;
        }
        maxQueuePerSecond.max(nowMillis, waiting);
        return true;
    }

    public boolean backlogged() {
        return waiting > 0;
    }

    public void calling() {
        apiCalls++;
    }

    /** The request's call starts now: its wait ends here unless a later call replaces this one. */
    public void callStarted(SimRequest request, long nowMillis) {
        int index = request.index();
        if (index >= lastCallStart.length) {
            int from = lastCallStart.length;
            lastCallStart = Arrays.copyOf(lastCallStart, Math.max(1_024, Math.max(index + 1, from * 2)));
            Arrays.fill(lastCallStart, from, lastCallStart.length, -1);
        }
        lastCallStart[index] = nowMillis;
    }

    public void throttled() {
        throttled++;
    }

    public void requeued() {
        requeues++;
    }

    /** A call succeeded; its quota-charged tokens count from the moment it started. */
    public void delivered(long startMillis, Charge charged, boolean duringBacklog) {
        deliveredPerMinute.add(startMillis, charged.amount(primary));
        deliveredPerTenSeconds.add(startMillis, charged.amount(primary));
        for (QuotaDimension dimension : QuotaDimension.values()) {
            allCharges[dimension.ordinal()] += charged.amount(dimension);
            if (duringBacklog) {
                backloggedCharges[dimension.ordinal()] += charged.amount(dimension);
            }
        }
        lastSuccessfulStart = Math.max(lastSuccessfulStart, startMillis);
    }

    public void finished(SimRequest request, boolean success, long nowMillis) {
        if (success) {
            succeeded++;
        } else {
            failed++;
        }
        if (latencyCount == latencies.length) {
            latencies = Arrays.copyOf(latencies, latencyCount * 2);
        }
        latencies[latencyCount++] = nowMillis - request.arrivalMillis();
        lastFinish = Math.max(lastFinish, nowMillis);
        int index = request.index();
        long started = index < lastCallStart.length && lastCallStart[index] >= 0 ? lastCallStart[index] : nowMillis;
        long wait = started - request.arrivalMillis();
        waits.add(wait);
        waitsByLane.computeIfAbsent(request.lane(), lane -> new Samples()).add(wait);
        waitsByTenant.computeIfAbsent(request.tenant(), tenant -> new Samples()).add(wait);
    }

    public StrategyResult result(String strategy) {
        return result(strategy, null);
    }

    /** The run's figures; {@code drainer} is what the production drainer's surroundings did, or null. */
    public StrategyResult result(String strategy, DrainerActivity drainer) {
        long[] sorted = Arrays.copyOf(latencies, latencyCount);
        Arrays.sort(sorted);
        Map<String, Double> byDimension;
        if (backlogMillis > 0) {
            byDimension = shares(backloggedCharges, backlogMillis);
        } else if (lastSuccessfulStart > firstArrival) {
            byDimension = shares(allCharges, lastSuccessfulStart - firstArrival);
        } else {
            byDimension = shares(allCharges, 0);
        }
        double utilization = byDimension.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        long drain = lastFinish == Long.MIN_VALUE ? 0 : lastFinish - firstArrival;
        return new StrategyResult(strategy, requests, succeeded, failed, throttled, apiCalls, requeues,
                percentile(sorted, 0.50), percentile(sorted, 0.99), round(drain / 1_000.0, 1),
                utilization, deliveredPerMinute.values(), deliveredPerTenSeconds.values(),
                maxQueuePerSecond.values(), waits.percentile(0.50), waits.percentile(0.99),
                groups(waitsByLane, Lane::wireName), groups(waitsByTenant, tenant -> tenant), drainer, byDimension);
    }

    private static <K> List<GroupWait> groups(Map<K, Samples> byGroup, java.util.function.Function<K, String> name) {
        List<GroupWait> groups = new ArrayList<>();
        byGroup.forEach((key, samples) -> groups.add(new GroupWait(name.apply(key), samples.size(),
                samples.percentile(0.50), samples.percentile(0.99))));
        return groups;
    }

    /** Each metered dimension's share of its quota over {@code millis}, by the dimension's short name. */
    private Map<String, Double> shares(long[] charges, long millis) {
        Map<String, Double> shares = new LinkedHashMap<>();
        for (QuotaDimension dimension : QuotaDimension.values()) {
            long limit = quota.limit(dimension);
            if (limit > 0) {
                double share = millis == 0 ? 0 : charges[dimension.ordinal()] / (limit * millis / 60_000.0);
                shares.put(dimensionName(dimension), round(share, 4));
            }
        }
        return Collections.unmodifiableMap(shares);
    }

    /** How tables and {@code result.json} name a dimension: rpm, tpm, inputTpm, outputTpm. */
    public static String dimensionName(QuotaDimension dimension) {
        return switch (dimension) {
            case REQUESTS -> "rpm";
            case TOKENS -> "tpm";
            case INPUT_TOKENS -> "inputTpm";
            case OUTPUT_TOKENS -> "outputTpm";
        };
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }

    private static double round(double value, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(value * scale) / scale;
    }

    /** A growing list of millisecond samples. */
    private static final class Samples {
        private long[] values = new long[64];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        int size() {
            return size;
        }

        long percentile(double p) {
            long[] sorted = Arrays.copyOf(values, size);
            Arrays.sort(sorted);
            return RunMetrics.percentile(sorted, p);
        }
    }

    /** Values per fixed-width time bucket from time 0. */
    private static final class TimeSeries {
        private final long width;
        private long[] values = new long[16];
        private int size;

        TimeSeries(long width) {
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
            int bucket = (int) (atMillis / width);
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
