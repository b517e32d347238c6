package dev.trafficshaper.bench;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.DynamoDbPersistence;
import dev.trafficshaper.testing.Persistence;
import dev.trafficshaper.usage.Settlement;
import dev.trafficshaper.usage.UsageSharding;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Drives the DynamoDB adapters with a simulated 2,000 submissions per second for one model and
 * reports the hottest partition key's writes per second and the DynamoDB calls per request, end
 * to end: store payload, enqueue, read heads, admit (fenced, in batches), mark INVOKING, store
 * result, settle usage, mark SUCCEEDED, read status, read result.
 *
 * <p>Time is simulated: every call carries the timestamp it would have at the target rate, and
 * writes are counted per key per simulated second, so the figures do not depend on how fast the
 * emulator answers. Run:
 * <pre>
 * ./mvnw -q -pl shared test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.trafficshaper.bench.PersistenceBenchmark -Dexec.args="2000 2 16"
 * </pre>
 * Arguments: submissions per second (2000), simulated seconds (2), queue shards (16).
 */
public final class PersistenceBenchmark {

    private static final String MODEL = "bench-model";
    private static final long T0 = 1_800_000_000_000L;
    private static final long TICK_MILLIS = 50;

    private PersistenceBenchmark() {
    }

    public static void main(String[] args) {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int shards = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        AtomicLong clock = new AtomicLong(T0);
        OperationCounter counter = new OperationCounter(clock::get);
        AwsEmulator aws = AwsEmulator.shared();
        DynamoDbClient dynamoDb = aws.configure(DynamoDbClient.builder())
                .overrideConfiguration(c -> c.addExecutionInterceptor(counter)).build();
        ModelCatalog catalog = ModelCatalog.of(List.of(new ModelConfig(MODEL, "amazon.nova-lite-v1:0",
                Backend.CONVERSE, Quota.tokensPerMinute(4_000_000), 10_000, 300_000, PacerSettings.defaults(),
                shards, 900, 3_600, null)));
        UsageSharding sharding = UsageSharding.defaults();
        Persistence store = DynamoDbPersistence.dynamoDb(dynamoDb, aws.createTable("bench"), aws.s3(),
                aws.createBucket("bench"), catalog, PayloadPolicy.defaults(), sharding, ShardPicker.roundRobin());

        Payload requestBody = Payload.json("{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"Summarise "
                + "the attached report in three bullet points.\"}]}],\"inferenceConfig\":{\"maxTokens\":500}}");
        Payload resultBody = Payload.json("{\"output\":{\"message\":{\"role\":\"assistant\",\"content\":"
                + "[{\"text\":\"- one\\n- two\\n- three\"}]}},\"stopReason\":\"end_turn\"}");
        Lease lease = store.leases().acquire(MODEL, "bench-drainer", 60_000, T0).lease();
        int perTick = (int) (rate * TICK_MILLIS / 1000);
        long ticks = seconds * 1000L / TICK_MILLIS;
        long submitted = 0;
        long completed = 0;
        long started = System.nanoTime();
        for (long tick = 0; tick < ticks; tick++) {
            long tickStart = T0 + tick * TICK_MILLIS;
            for (int j = 0; j < perTick; j++) {
                long now = tickStart + j * TICK_MILLIS / perTick;
                clock.set(now);
                String id = "req-" + submitted++;
                long deadline = now + 900_000;
                PayloadRef ref = store.payloads().put(id, PayloadKind.REQUEST, requestBody,
                        deadline + NewRequest.DEFAULT_RETENTION_MILLIS);
                store.queue().enqueue(NewRequest.builder().requestId(id).tenant("tenant-" + (j % 7)).modelKey(MODEL)
                        .lane(j % 4 == 0 ? Lane.INTERACTIVE : Lane.BULK).deadlineMillis(deadline)
                        .estimate(TokenUsage.of(1_000, 500)).payloadRef(ref).taskToken("token-" + id).build(), now);
            }
            long drainAt = tickStart + TICK_MILLIS - 1;
            clock.set(drainAt);
            if (tick % (1000 / TICK_MILLIS) == 0) {
                lease = store.leases().renew(lease, 60_000, drainAt).orElseThrow();
            }
            List<QueueItem> heads = store.queue().heads(MODEL, perTick, drainAt).work();
            AdmitResult admitted = store.queue().admit(lease, heads, drainAt);
            for (QueueItem item : admitted.admitted()) {
                completed += complete(store, item, drainAt, resultBody, clock);
            }
        }
        double wallSeconds = (System.nanoTime() - started) / 1e9;
        report(counter, rate, seconds, shards, sharding, submitted, completed, wallSeconds);
    }

    private static int complete(Persistence store, QueueItem item, long now, Payload resultBody, AtomicLong clock) {
        String id = item.requestId();
        clock.set(now);
        store.requests().transition(id, new RequestEvent.StartInvoking(), now);
        TokenUsage usage = TokenUsage.of(1_000, 120);
        PayloadRef result = store.payloads().put(id, PayloadKind.RESULT, resultBody, item.expiresAtMillis());
        store.usage().record(new Settlement(MODEL, id, item.tenant(), now, usage,
                Charge.settlement(Quota.tokensPerMinute(4_000_000), usage)), now);
        store.requests().transition(id, new RequestEvent.Succeed(usage, result), now);
        store.requests().find(id, now).orElseThrow();
        store.payloads().get(result, now).orElseThrow();
        return 1;
    }

    private static void report(OperationCounter counter, int rate, int seconds, int shards, UsageSharding sharding,
                               long submitted, long completed, double wallSeconds) {
        System.out.printf(Locale.ROOT, "%nPersistence benchmark: %d submissions/s for %d simulated s, %d queue shards,"
                + " %d usage shards; %d submitted, %d completed (%.0f s wall clock)%n", rate, seconds, shards,
                sharding.shards(), submitted, completed, wallSeconds);
        System.out.println("\nDynamoDB calls per request, end to end:");
        long totalCalls = 0;
        for (Map.Entry<String, Long> e : counter.calls().entrySet()) {
            totalCalls += e.getValue();
            System.out.printf(Locale.ROOT, "  %-20s %6.3f%n", e.getKey(), e.getValue() / (double) completed);
        }
        System.out.printf(Locale.ROOT, "  %-20s %6.3f%n", "all calls", totalCalls / (double) completed);
        System.out.printf(Locale.ROOT, "  %-20s %6.3f  (of which in transactions: %.3f)%n", "item writes",
                counter.itemWrites() / (double) completed, counter.transactionalWrites() / (double) completed);
        System.out.printf(Locale.ROOT, "  %-20s %6.3f%n", "read calls", counter.readCalls() / (double) completed);

        long fromSecond = Math.floorDiv(T0, 1000);
        Map<String, Long> peaks = counter.peakWritesPerSecond(fromSecond, fromSecond + seconds);
        System.out.println("\nHottest partition keys (peak writes in one simulated second):");
        peaks.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(8)
                .forEach(e -> System.out.printf(Locale.ROOT, "  %-40s %5d/s%n", e.getKey(), e.getValue()));
        long hottest = peaks.values().stream().mapToLong(Long::longValue).max().orElse(0);
        System.out.printf(Locale.ROOT, "%nHottest key: %d writes/s (target <= 300): %s%n", hottest,
                hottest <= 300 ? "OK" : "OVER TARGET");
    }
}
