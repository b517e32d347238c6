package dev.trafficshaper.aws.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.ShardFlow;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.testing.AwsEmulator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * The heads read with its production page size against the emulator: one heavy tenant's backlog
 * costs one jump per shard, the Query calls are the ones {@link DynamoDbRequestQueue#headsQueriesOfShard}
 * predicts, and the shards are read on several threads at once.
 */
class DynamoDbQueueHeadsIT {

    private static final String MODEL = "heads-model";
    private static final int SHARDS = 4;
    private static final long T0 = 1_700_000_000_000L;
    private static final long DEADLINE = T0 + 600_000;
    private static final String HEAVY = "arn:aws:iam::111111111111:role/batch";
    private static final List<String> LIGHT = List.of("light-1", "light-2", "light-3", "light-4");

    private final AtomicInteger queries = new AtomicInteger();
    private final Set<String> queryThreads = ConcurrentHashMap.newKeySet();
    private DynamoDbRequestQueue queue;

    @BeforeEach
    void setUp() {
        AwsEmulator aws = AwsEmulator.shared();
        ExecutionInterceptor countQueries = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof QueryRequest) {
                    queries.incrementAndGet();
                    queryThreads.add(Thread.currentThread().getName());
                }
            }
        };
        DynamoDbClient dynamoDb = aws.configure(DynamoDbClient.builder())
                .overrideConfiguration(c -> c.addExecutionInterceptor(countQueries)).build();
        ModelCatalog catalog = ModelCatalog.of(List.of(new ModelConfig(MODEL, "amazon.nova-lite-v1:0",
                Backend.CONVERSE, Quota.tokensPerMinute(4_000_000), 10_000, 300_000, PacerSettings.defaults(),
                SHARDS, 900, 3_600, null)));
        queue = DynamoDbRequestQueue.create(dynamoDb, aws.createTable("heads"), catalog, ShardPicker.startingAt(0));
    }

    @Test
    void aHeavyTenantCostsOneJumpPerShardAndTheCallsAreThePredictedOnes() {
        List<RequestRecord> queued = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            queued.add(queue.enqueue(request("heavy-" + i, HEAVY), T0 + i).record());
        }
        for (int i = 0; i < 10; i++) {
            for (String light : LIGHT) {
                queued.add(queue.enqueue(request(light + "-" + i, light), T0 + 1_000 + i).record());
            }
        }
        queries.set(0);

        QueueHeads heads = queue.heads(MODEL, 50, T0 + 2_000);

        Map<String, List<QueueItem>> byTenant = heads.workByTenant(Lane.BULK);
        assertThat(byTenant).containsOnlyKeys(HEAVY, "light-1", "light-2", "light-3", "light-4");
        assertThat(byTenant.get(HEAVY)).hasSize(50).extracting(QueueItem::requestId)
                .startsWith("heavy-0", "heavy-1", "heavy-2").endsWith("heavy-49");
        LIGHT.forEach(light -> assertThat(byTenant.get(light)).hasSize(10));
        int predicted = 0;
        for (int shard = 0; shard < SHARDS; shard++) {
            predicted += DynamoDbRequestQueue.headsQueriesOfShard(flowSizes(queued, shard), 50);
        }
        assertThat(predicted).as("one page and one jump per shard").isEqualTo(2 * SHARDS);
        assertThat(queries.get()).isEqualTo(predicted);
        DynamoDbCallPattern modelled = DynamoDbCallPattern.heads(SHARDS, layout(queued), 50);
        assertThat(modelled).isEqualTo(new DynamoDbCallPattern(predicted, 2));
        assertThat(queryThreads).as("shards read at once").hasSize(SHARDS)
                .allSatisfy(name -> assertThat(name).startsWith("dynamodb-queue-read-"));

        queries.set(0);
        assertThat(queue.depth(MODEL, T0 + 2_000)).isEqualTo(640);
        assertThat(queries.get()).as("one COUNT page per shard").isEqualTo(SHARDS);
    }

    @Test
    void lightTenantsAloneTakeOneQueryPerShard() {
        List<RequestRecord> queued = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            for (String light : LIGHT) {
                queued.add(queue.enqueue(request(light + "-" + i, light), T0 + i).record());
            }
        }
        queries.set(0);

        QueueHeads heads = queue.heads(MODEL, 50, T0 + 1_000);

        assertThat(heads.work()).hasSize(48);
        assertThat(queries.get()).isEqualTo(SHARDS)
                .isEqualTo((int) DynamoDbRequestQueue.headsQueries(SHARDS, LIGHT.size(), 12, 50));
    }

    private static List<ShardFlow> layout(List<RequestRecord> queued) {
        Map<List<Object>, Long> counts = new HashMap<>();
        queued.forEach(r -> counts.merge(List.of(r.shard(), r.lane(), r.tenant()), 1L, Long::sum));
        List<ShardFlow> layout = new ArrayList<>();
        counts.forEach((k, n) -> layout.add(new ShardFlow((Integer) k.get(0), (Lane) k.get(1), (String) k.get(2), n)));
        return layout;
    }

    /** Each flow's admissible items in one shard, flows in the shard's key order. */
    private static long[] flowSizes(List<RequestRecord> queued, int shard) {
        Map<String, Long> sizes = new TreeMap<>();
        for (RequestRecord record : queued) {
            if (record.shard() == shard) {
                sizes.merge(TableKeys.flowPrefix(record.lane(), TableKeys.tenantDigest(record.tenant())), 1L,
                        Long::sum);
            }
        }
        return sizes.values().stream().mapToLong(Long::longValue).toArray();
    }

    private static NewRequest request(String id, String tenant) {
        PayloadRef ref = new PayloadRef(PayloadRef.Location.INLINE, id, PayloadKind.REQUEST, "0".repeat(64), 2,
                RequestRecord.ceilToSecond(DEADLINE + NewRequest.DEFAULT_RETENTION_MILLIS));
        return NewRequest.builder().requestId(id).tenant(tenant).modelKey(MODEL).lane(Lane.BULK)
                .deadlineMillis(DEADLINE).estimate(TokenUsage.of(1_000, 500)).payloadRef(ref).build();
    }
}
