package dev.trafficshaper.loadtest.bench;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.lease.InMemoryDrainerLeases;
import dev.trafficshaper.lifecycle.ConcurrentDispatch;
import dev.trafficshaper.lifecycle.DrainClock;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.InMemoryModelStatusBoard;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.ShaperMetrics;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.InMemoryPayloadStore;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.queue.InMemoryRequestQueue;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.InMemoryRequestStore;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.threads.DaemonThreads;
import dev.trafficshaper.usage.InMemoryUsageLedger;
import dev.trafficshaper.usage.UsageSharding;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The production drainer ({@link DrainService} around its core) against a backlog, with every
 * port call it makes paid at DynamoDB's call pattern and a modelled latency, and every dispatch
 * an asynchronous invoke of that latency through {@link ConcurrentDispatch}, as the Queue Processor
 * Lambda makes it. The Bedrock Processor (the real {@link InvocationService}) answers each
 * request after {@code bedrockMillis} on its own threads, writing the terminal state the drainer
 * polls for. The model's quota is set far above what one drainer can admit, so the figure is the
 * drainer's own ceiling.
 */
final class DrainBench {

    static final String MODEL = "bench";

    /**
     * Requests kept waiting ahead of the drainer. The backlog is topped up to this many beyond
     * those dispatched every {@link #TOP_UP_MILLIS}, so a fast machine never empties it and the
     * figure is the drainer's rate under a standing backlog, never diluted by idle time.
     */
    static final long BACKLOG = 10_000;
    static final long TOP_UP_MILLIS = 50;

    private static final BedrockOutcome ANSWER = new BedrockOutcome.Succeeded(TokenUsage.of(100, 20), "end_turn",
            "{\"output\":{\"message\":{\"role\":\"assistant\",\"content\":[{\"text\":\"ok\"}]}},"
                    + "\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":100,\"outputTokens\":20}}");

    /** What one run measured. */
    record Result(long admitted, double seconds, long dynamoDbCalls, long dispatched) {
        double admissionsPerSecond() {
            return admitted / seconds;
        }

        double callsPerAdmission() {
            return admitted == 0 ? 0 : (double) dynamoDbCalls / admitted;
        }
    }

    private final int seconds;
    private final double latencyMillis;
    private final long bedrockMillis;
    private final int shards;
    private final int tenants;
    private final int dispatchThreads;

    DrainBench(int seconds, double latencyMillis, long bedrockMillis, int shards, int tenants, int dispatchThreads) {
        this.seconds = seconds;
        this.latencyMillis = latencyMillis;
        this.bedrockMillis = bedrockMillis;
        this.shards = shards;
        this.tenants = tenants;
        this.dispatchThreads = dispatchThreads;
    }

    Result run(PrintWriter out) throws InterruptedException {
        // 100,000 requests a second allowed: the pacer never holds the drainer back.
        ModelConfig model = new ModelConfig(MODEL, "vendor.bench-v1", Backend.CONVERSE,
                new Quota(0, 6_000_000, 0, 0, 1), 1_000, 100_000,
                PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).build(), shards, 900, 3_600, null);
        ModelCatalog catalog = ModelCatalog.of(List.of(model));
        InMemoryRequestStore requests = new InMemoryRequestStore();
        InMemoryDrainerLeases leases = new InMemoryDrainerLeases();
        InMemoryRequestQueue queue = InMemoryRequestQueue.create(requests, leases, catalog, ShardPicker.roundRobin());
        InMemoryPayloadStore payloads = InMemoryPayloadStore.create();
        InMemoryModelStatusBoard board = new InMemoryModelStatusBoard();
        InMemoryUsageLedger usage = InMemoryUsageLedger.create(UsageSharding.defaults());

        long now = System.currentTimeMillis();
        out.printf("drain-bench: %d s, %s ms per DynamoDB call and per dispatch, Bedrock answers after %d ms, "
                + "%d shards, %d tenants, %d dispatch threads; queueing %,d requests, topped up as they go...%n",
                seconds, latencyMillis, bedrockMillis, shards, tenants, dispatchThreads, BACKLOG);
        out.flush();
        Backlog backlog = new Backlog(queue, payloads, tenants, now + 3_600_000);
        backlog.topUp(BACKLOG, 0);

        InvocationService processor = InvocationService.create(catalog, requests, queue, payloads, usage,
                (config, body, timeout) -> ANSWER,
                terminal -> { }, key -> { }, ShaperMetrics.NONE, System::currentTimeMillis);
        ScheduledExecutorService generations = Executors.newScheduledThreadPool(2,
                DaemonThreads.factory("bench-bedrock"));
        ModeledCalls calls = new ModeledCalls(latencyMillis);
        AtomicLong dispatched = new AtomicLong();
        ConcurrentDispatch dispatch = ConcurrentDispatch.of((key, requestId) -> {
            calls.wait(1); // the asynchronous Lambda invoke
            dispatched.incrementAndGet();
            // The Bedrock Processor claims the request as it starts; Bedrock answers bedrockMillis later.
            generations.execute(() -> {
                if (processor.begin(requestId) instanceof InvocationService.Call call) {
                    generations.schedule(() -> processor.complete(call, ANSWER), bedrockMillis, TimeUnit.MILLISECONDS);
                }
            });
        }, dispatchThreads, (key, requestId, failure) -> out.println("dispatch of " + requestId + " failed: "
                + failure));

        DrainService drainer = DrainService.builder().catalog(catalog)
                .queue(ModeledPorts.queue(queue, shards, calls))
                .requests(ModeledPorts.requests(requests, calls))
                .leases(ModeledPorts.leases(leases, calls))
                .board(ModeledPorts.board(board, calls))
                .dispatch(dispatch).wake(key -> { }).callback(terminal -> { })
                .clock(DrainClock.system()).build();

        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.factory("bench-progress"));
        long started = System.nanoTime();
        long callsBefore = calls.count();
        progress.scheduleAtFixedRate(() -> backlog.topUp(BACKLOG, dispatched.get()), TOP_UP_MILLIS, TOP_UP_MILLIS,
                TimeUnit.MILLISECONDS);
        progress.scheduleAtFixedRate(() -> {
            double elapsed = (System.nanoTime() - started) / 1e9;
            long sent = dispatched.get();
            out.printf("  %4.1f s  dispatched %,8d  (%,.0f/s)  DynamoDB calls %,d%n", elapsed, sent,
                    sent / elapsed, calls.count() - callsBefore);
            out.flush();
        }, 1, 1, TimeUnit.SECONDS);
        DrainService.Report report;
        try {
            report = drainer.drain(MODEL, "drain-bench", System.currentTimeMillis() + seconds * 1_000L);
        } finally {
            progress.shutdownNow();
            dispatch.close();
            generations.shutdownNow();
        }
        double elapsed = (System.nanoTime() - started) / 1e9;
        out.printf("drainer stopped (%s): admitted %,d, settled %,d, throttled %d%n", report.stoppedBecause(),
                report.admitted(), report.settled(), report.throttled());
        return new Result(report.admitted(), elapsed, calls.count() - callsBefore, dispatched.get());
    }

    /** The requests queued so far, numbered in order, added to until a given count waits beyond those sent. */
    private static final class Backlog {
        private final InMemoryRequestQueue queue;
        private final InMemoryPayloadStore payloads;
        private final int tenants;
        private final long deadline;
        private long queued;

        Backlog(InMemoryRequestQueue queue, InMemoryPayloadStore payloads, int tenants, long deadline) {
            this.queue = queue;
            this.payloads = payloads;
            this.tenants = tenants;
            this.deadline = deadline;
        }

        synchronized void topUp(long waiting, long sent) {
            long now = System.currentTimeMillis();
            for (; queued < sent + waiting; queued++) {
                String id = "bench-" + queued;
                queue.enqueue(NewRequest.builder().requestId(id).tenant("tenant-" + (queued % tenants)).modelKey(MODEL)
                        .lane(queued % 4 == 3 ? Lane.BULK : Lane.INTERACTIVE).deadlineMillis(deadline)
                        .estimate(TokenUsage.of(100, 100))
                        .payloadRef(payloads.put(id, PayloadKind.REQUEST, Payload.json("{\"id\":\"" + id + "\"}"),
                                deadline + NewRequest.DEFAULT_RETENTION_MILLIS))
                        .taskToken("token-" + id).build(), now);
            }
        }
    }
}
