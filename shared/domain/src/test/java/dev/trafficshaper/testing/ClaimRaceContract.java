package dev.trafficshaper.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseAttempt;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.usage.UsageSharding;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency under contention, with real threads: many claimers draining one queue, and two
 * drainers fighting over one lease. Each backend runs it; on DynamoDB every call is real HTTP.
 */
public abstract class ClaimRaceContract {

    private static final String MODEL = "race-model";
    private static final long T0 = 1_700_000_000_000L;
    private static final int ITEMS = 500;
    private static final int CLAIMERS = 8;
    private static final ModelCatalog CATALOG = ModelCatalog.of(List.of(
            new ModelConfig(MODEL, "amazon.nova-lite-v1:0", Backend.CONVERSE, Quota.tokensPerMinute(4_000_000),
                    10_000, 300_000, PacerSettings.defaults(), 4, 900, 3_600, null)));

    private Persistence store;
    private ExecutorService pool;

    protected abstract Persistence newBackend(ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                              ShardPicker picker);

    @BeforeEach
    void setUp() {
        store = newBackend(CATALOG, PayloadPolicy.defaults(), UsageSharding.defaults(), ShardPicker.startingAt(0));
        pool = Executors.newFixedThreadPool(CLAIMERS);
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
    }

    @Test
    void eightConcurrentClaimersAdmitEveryItemExactlyOnce() throws Exception {
        for (int i = 0; i < ITEMS; i++) {
            store.queue().enqueue(request(String.format("item-%03d", i), i % 5 == 0 ? Lane.INTERACTIVE : Lane.BULK),
                    T0 + i);
        }
        Lease lease = store.leases().acquire(MODEL, "drainer", 3_600_000, T0 + ITEMS).lease();
        long now = T0 + ITEMS + 1;
        ConcurrentLinkedQueue<String> admitted = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Callable<Integer>> claimers = new ArrayList<>();
        for (int c = 0; c < CLAIMERS; c++) {
            Random random = new Random(c);
            claimers.add(() -> {
                start.await();
                int rounds = 0;
                while (true) {
                    List<QueueItem> heads = new ArrayList<>(store.queue().heads(MODEL, 12, now).work());
                    if (heads.isEmpty()) {
                        return rounds;
                    }
                    Collections.shuffle(heads, random);
                    AdmitResult result = store.queue().admit(lease, heads.subList(0, Math.min(6, heads.size())), now);
                    result.admitted().forEach(item -> admitted.add(item.requestId()));
                    rounds++;
                }
            });
        }
        List<Future<Integer>> running = new ArrayList<>();
        claimers.forEach(claimer -> running.add(pool.submit(claimer)));
        start.countDown();
        int rounds = 0;
        for (Future<Integer> f : running) {
            // A fast backend may let one claimer empty the queue before another starts; that is fine.
            rounds += f.get(5, TimeUnit.MINUTES);
        }
        assertThat(rounds).isPositive();

        assertThat(admitted).hasSize(ITEMS).doesNotHaveDuplicates();
        for (int i = 0; i < ITEMS; i++) {
            RequestRecord record = store.requests().find(String.format("item-%03d", i), now).orElseThrow();
            assertThat(record.state()).isEqualTo(RequestState.ADMITTED);
            assertThat(record.fencingToken()).isEqualTo(lease.fencingToken());
        }
        assertThat(store.queue().depth(MODEL, now)).isZero();
    }

    @Test
    void twoDrainersContendForOneLeaseAndTheStaleOnesFencedWritesAreRejected() throws Exception {
        for (int i = 0; i < 10; i++) {
            store.queue().enqueue(request("lease-item-" + i, Lane.INTERACTIVE), T0 + i);
        }
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentHashMap<String, LeaseAttempt> attempts = new ConcurrentHashMap<>();
        List<Future<?>> contenders = new ArrayList<>();
        for (String owner : List.of("drainer-a", "drainer-b")) {
            contenders.add(pool.submit(() -> {
                start.await();
                attempts.put(owner, store.leases().acquire(MODEL, owner, 10_000, T0 + 100));
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : contenders) {
            f.get(1, TimeUnit.MINUTES);
        }

        assertThat(attempts.values()).filteredOn(LeaseAttempt::granted).hasSize(1);
        Lease winner = attempts.values().stream().filter(LeaseAttempt::granted).findFirst().orElseThrow().lease();
        String loserName = winner.owner().equals("drainer-a") ? "drainer-b" : "drainer-a";
        assertThat(attempts.get(loserName).lease()).isEqualTo(winner);

        List<QueueItem> heads = store.queue().heads(MODEL, 10, T0 + 200).work();
        assertThat(store.queue().admit(winner, heads.subList(0, 3), T0 + 200).admitted()).hasSize(3);

        long afterExpiry = winner.expiresAtMillis();
        Lease successor = store.leases().acquire(MODEL, loserName, 10_000, afterExpiry).lease();
        assertThat(successor.fencingToken()).isEqualTo(winner.fencingToken() + 1);
        List<QueueItem> rest = heads.subList(3, heads.size());

        assertThatThrownBy(() -> store.queue().admit(winner, rest, afterExpiry + 1))
                .isInstanceOf(LeaseLostException.class);
        assertThat(store.leases().renew(winner, 10_000, afterExpiry + 1)).isEmpty();
        assertThat(store.queue().depth(MODEL, afterExpiry + 1)).isEqualTo(7);
        for (QueueItem item : rest) {
            assertThat(store.requests().find(item.requestId(), afterExpiry + 1).orElseThrow().state())
                    .isEqualTo(RequestState.QUEUED);
        }
        assertThat(store.queue().admit(successor, rest, afterExpiry + 2).admitted()).hasSize(7);
    }

    private static NewRequest request(String id, Lane lane) {
        return NewRequest.builder().requestId(id).tenant("tenant-1").modelKey(MODEL).lane(lane)
                .deadlineMillis(T0 + 3_600_000).estimate(TokenUsage.of(1_000, 500))
                .payloadRef(new PayloadRef(PayloadRef.Location.INLINE, id, PayloadKind.REQUEST, "0".repeat(64), 2,
                        RequestRecord.ceilToSecond(T0 + 4_000_000)))
                .build();
    }
}
