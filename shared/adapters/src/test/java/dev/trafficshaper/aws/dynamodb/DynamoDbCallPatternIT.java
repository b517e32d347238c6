package dev.trafficshaper.aws.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.testing.AwsEmulator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB calls the drainer's port operations really make, counted by an SDK interceptor
 * against the emulator, are the ones {@link DynamoDbCallPattern} (and so the drain benchmark)
 * assumes.
 */
class DynamoDbCallPatternIT {

    private static final String MODEL = "bench";
    private static final int SHARDS = 4;
    private static final long NOW = 1_700_000_000_000L;

    private final AtomicInteger calls = new AtomicInteger();
    private final AwsEmulator aws = AwsEmulator.shared();
    private final DynamoDbClient dynamoDb = aws.configure(DynamoDbClient.builder())
            .overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
                @Override
                public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                    calls.incrementAndGet();
                }
            })).build();
    private final String table = aws.createTable("calls");
    private final ModelCatalog catalog = ModelCatalog.of(List.of(new ModelConfig(MODEL, "vendor.bench-v1",
            Backend.CONVERSE, Quota.tokensPerMinute(10_000_000), 1_000, 100_000, PacerSettings.defaults(), SHARDS,
            900, 3_600, null)));
    private final DynamoDbRequestQueue queue = DynamoDbRequestQueue.create(dynamoDb, table, catalog,
            ShardPicker.startingAt(0));
    private final DynamoDbRequestStore requests = DynamoDbRequestStore.create(dynamoDb, table);
    private final DynamoDbDrainerLeases leases = DynamoDbDrainerLeases.create(dynamoDb, table);
    private final DynamoDbModelStatusBoard board = DynamoDbModelStatusBoard.create(dynamoDb, table);

    @Test
    void theDrainersOperationsMakeTheCallsTheBenchmarkAssumes() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 130; i++) {
            String id = "r" + i;
            ids.add(id);
            queue.enqueue(request(id, i % 3 == 0 ? Lane.BULK : Lane.INTERACTIVE), NOW + i);
        }

        assertThat(count(() -> queue.heads(MODEL, 50, NOW + 1_000))).isEqualTo(DynamoDbCallPattern.heads(SHARDS).calls());
        assertThat(count(() -> queue.depth(MODEL, NOW + 1_000))).isEqualTo(DynamoDbCallPattern.depth(SHARDS).calls());

        Lease lease = leases.acquire(MODEL, "drainer", 30_000, NOW + 1_000).lease();
        List<QueueItem> heads = queue.heads(MODEL, 60, NOW + 1_000).work();
        List<QueueItem> picks = heads.subList(0, 60);
        assertThat(count(() -> queue.admit(lease, picks, NOW + 1_001)))
                .isEqualTo(DynamoDbCallPattern.admit(60).calls()).isEqualTo(3);
        assertThat(count(() -> requests.findAll(ids, NOW + 1_002)))
                .isEqualTo(DynamoDbCallPattern.findAll(130).calls()).isEqualTo(2);

        int single = DynamoDbCallPattern.single().calls();
        assertThat(count(() -> leases.renew(lease, 30_000, NOW + 1_003))).isEqualTo(single);
        assertThat(count(() -> {
            board.publish(ModelStatus.idle(MODEL, 0.95, NOW + 1_004));
            return null;
        })).isEqualTo(single);
        assertThat(count(() -> board.read(MODEL))).isEqualTo(single);
        QueueItem left = queue.heads(MODEL, 1, NOW + 1_005).work().get(0);
        assertThat(count(() -> queue.expire(left, NOW + 1_005))).isEqualTo(DynamoDbCallPattern.expire().calls());
        Lease renewed = leases.current(MODEL, NOW + 1_006).orElseThrow();
        assertThat(count(() -> leases.release(renewed, NOW + 1_006))).isEqualTo(single);
        assertThat(count(() -> leases.acquire(MODEL, "next", 30_000, NOW + 1_007))).isEqualTo(single);
    }

    private int count(Supplier<?> operation) {
        int before = calls.get();
        operation.get();
        return calls.get() - before;
    }

    private static NewRequest request(String id, Lane lane) {
        PayloadRef body = new PayloadRef(PayloadRef.Location.INLINE, id, PayloadKind.REQUEST, "0".repeat(64), 10,
                NOW + 86_400_000);
        return NewRequest.builder().requestId(id).tenant("acme").modelKey(MODEL).lane(lane)
                .deadlineMillis(NOW + 600_000).estimate(TokenUsage.of(10, 100)).payloadRef(body)
                .taskToken("token-" + id).build();
    }
}
