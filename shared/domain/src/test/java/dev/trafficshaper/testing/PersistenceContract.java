package dev.trafficshaper.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseAttempt;
import dev.trafficshaper.lease.LeaseLostException;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.InvalidPayloadException;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.EnqueueResult;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequeueReason;
import dev.trafficshaper.request.TransitionResult;
import dev.trafficshaper.usage.Settlement;
import dev.trafficshaper.usage.UsageSharding;
import dev.trafficshaper.usage.UsageTotals;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every persistence backend must have. One subclass per backend; a test that passes
 * on one and fails on the other is a disagreement between adapters, i.e. a bug. Time is a plain
 * number advanced by the tests.
 */
public abstract class PersistenceContract {

    protected static final String MODEL = "model-a";
    protected static final int SHARDS = 4;
    protected static final long T0 = 1_700_000_000_000L;
    protected static final long DEADLINE = T0 + 600_000;
    protected static final PayloadPolicy POLICY = new PayloadPolicy(PayloadPolicy.DEFAULT_INLINE_MAX_BYTES,
            1024 * 1024);
    protected static final UsageSharding SHARDING = new UsageSharding(4, 60_000, 3_600_000);
    protected static final ModelCatalog CATALOG = ModelCatalog.of(List.of(
            new ModelConfig(MODEL, "amazon.nova-lite-v1:0", Backend.CONVERSE, Quota.tokensPerMinute(4_000_000),
                    10_000, 300_000, PacerSettings.defaults(), SHARDS, 900, 3_600, null)));

    protected Persistence store;
    private ExecutorService pool;

    /** A fresh, empty backend with the given catalog, policy and sharding. */
    protected abstract Persistence newBackend(ModelCatalog catalog, PayloadPolicy policy, UsageSharding sharding,
                                              ShardPicker picker);

    @BeforeEach
    void setUp() {
        store = newBackend(CATALOG, POLICY, SHARDING, ShardPicker.startingAt(0));
        pool = Executors.newFixedThreadPool(8);
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
    }

    // ---- enqueue

    @Test
    void enqueueStoresAQueuedRecordAndOneQueueItem() {
        EnqueueResult result = store.queue().enqueue(request("r1", Lane.INTERACTIVE, DEADLINE), T0);

        assertThat(result.created()).isTrue();
        RequestRecord record = store.requests().find("r1", T0 + 1).orElseThrow();
        assertThat(record).isEqualTo(result.record());
        assertThat(record.state()).isEqualTo(RequestState.QUEUED);
        assertThat(record.enqueuedAtMillis()).isEqualTo(T0);
        assertThat(record.httpStatus()).isEqualTo(202);
        assertThat(record.expiresAtMillis() % 1000).isZero();
        assertThat(store.queue().heads(MODEL, 10, T0 + 1).work())
                .containsExactly(QueueItem.of(record));
    }

    @Test
    void enqueueingTheSameIdTwiceReturnsTheFirstRequest() {
        RequestRecord first = store.queue().enqueue(request("dup", Lane.INTERACTIVE, DEADLINE), T0).record();

        EnqueueResult second = store.queue().enqueue(request("dup", Lane.BULK, DEADLINE + 5), T0 + 1_000);

        assertThat(second.created()).isFalse();
        assertThat(second.record()).isEqualTo(first);
        assertThat(store.queue().heads(MODEL, 10, T0 + 2_000).work()).hasSize(1);
        assertThat(store.queue().depth(MODEL, T0 + 2_000)).isEqualTo(1);
    }

    @Test
    void concurrentEnqueuesOfOneIdStoreOneRequestAndOneQueueItem() throws Exception {
        List<Callable<EnqueueResult>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            long now = T0 + i;
            calls.add(() -> store.queue().enqueue(request("same", Lane.INTERACTIVE, DEADLINE), now));
        }
        List<EnqueueResult> results = new ArrayList<>();
        for (Future<EnqueueResult> f : pool.invokeAll(calls)) {
            results.add(f.get());
        }

        assertThat(results).filteredOn(EnqueueResult::created).hasSize(1);
        RequestRecord winner = results.stream().filter(EnqueueResult::created).findFirst().orElseThrow().record();
        assertThat(results).extracting(EnqueueResult::record).containsOnly(winner);
        assertThat(store.queue().heads(MODEL, 10, T0 + 100).work()).hasSize(1);
    }

    @Test
    void enqueueForAnUnknownModelFailsAndStoresNothing() {
        NewRequest unknown = NewRequest.builder().requestId("x").tenant("t").modelKey("nope")
                .deadlineMillis(DEADLINE).estimate(TokenUsage.of(1, 1)).payloadRef(ref("x")).build();

        assertThatThrownBy(() -> store.queue().enqueue(unknown, T0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nope");
        assertThat(store.requests().find("x", T0)).isEmpty();
    }

    @Test
    void enqueueSpreadsItemsEvenlyOverTheModelsShards() {
        for (int i = 0; i < 40; i++) {
            store.queue().enqueue(request("s" + i, Lane.BULK, DEADLINE), T0 + i);
        }

        Map<Integer, Long> perShard = store.queue().heads(MODEL, 100, T0 + 100).work().stream()
                .collect(Collectors.groupingBy(QueueItem::shard, Collectors.counting()));
        assertThat(perShard).containsOnlyKeys(0, 1, 2, 3).allSatisfy((shard, count) -> assertThat(count)
                .isEqualTo(10L));
    }

    @Test
    void aRequestPastItsRetentionIsGoneAndItsIdCanBeReused() {
        RequestRecord old = store.queue().enqueue(request("old", Lane.BULK, T0 + 1_000), T0).record();
        long after = old.expiresAtMillis();

        assertThat(store.requests().find("old", after - 1)).isPresent();
        assertThat(store.requests().find("old", after)).isEmpty();
        assertThat(store.queue().enqueue(request("old", Lane.BULK, after + 60_000), after).created()).isTrue();
    }

    // ---- heads

    @Test
    void headsListInteractiveBeforeBulkAndOldestFirstAcrossShards() {
        store.queue().enqueue(request("b-old", Lane.BULK, DEADLINE), T0);
        store.queue().enqueue(request("i-new", Lane.INTERACTIVE, DEADLINE), T0 + 30);
        store.queue().enqueue(request("b-new", Lane.BULK, DEADLINE), T0 + 20);
        store.queue().enqueue(request("i-old", Lane.INTERACTIVE, DEADLINE), T0 + 10);
        store.queue().enqueue(request("i-mid", Lane.INTERACTIVE, DEADLINE), T0 + 15);

        QueueHeads heads = store.queue().heads(MODEL, 10, T0 + 100);

        assertThat(heads.work()).extracting(QueueItem::requestId)
                .containsExactly("i-old", "i-mid", "i-new", "b-old", "b-new");
        assertThat(store.queue().heads(MODEL, 2, T0 + 100).work())
                .extracting(QueueItem::requestId).containsExactly("i-old", "i-mid", "b-old", "b-new");
    }

    @Test
    void itemsPastTheirDeadlineAreNeverWorkButAreReportedAsOverdue() {
        store.queue().enqueue(request("late", Lane.INTERACTIVE, T0 + 1_000), T0);
        store.queue().enqueue(request("fine", Lane.INTERACTIVE, DEADLINE), T0 + 5);

        QueueHeads heads = store.queue().heads(MODEL, 10, T0 + 1_000);

        assertThat(heads.work()).extracting(QueueItem::requestId).containsExactly("fine");
        assertThat(heads.overdue()).extracting(QueueItem::requestId).containsExactly("late");
        assertThat(store.queue().depth(MODEL, T0 + 1_000)).isEqualTo(1);
    }

    @Test
    void headsStopAtTheLimitAndReportOnlyOverdueItemsAheadOfTheLastOne() {
        for (int i = 0; i < 12; i++) {
            long deadline = i % 3 == 0 ? T0 + 500 : DEADLINE;
            store.queue().enqueue(request("h" + (100 + i), Lane.BULK, deadline), T0 + i);
        }

        QueueHeads heads = store.queue().heads(MODEL, 4, T0 + 1_000);

        assertThat(heads.work()).extracting(QueueItem::requestId).containsExactly("h101", "h102", "h104", "h105");
        assertThat(heads.overdue()).extracting(QueueItem::requestId).containsExactly("h100", "h103");
    }

    // ---- heads, tenant by tenant

    @Test
    void headsReachEveryTenantInEachLaneHoweverMuchAnotherTenantHasQueued() {
        for (int i = 0; i < 40; i++) {
            store.queue().enqueue(request("heavy-b" + i, "heavy", Lane.BULK, DEADLINE), T0 + i);
            store.queue().enqueue(request("heavy-i" + i, "heavy", Lane.INTERACTIVE, DEADLINE), T0 + i);
        }
        for (String light : List.of("light-1", "light-2", "light-3")) {
            for (int i = 0; i < 2; i++) {
                store.queue().enqueue(request(light + "-b" + i, light, Lane.BULK, DEADLINE), T0 + 100 + i);
                store.queue().enqueue(request(light + "-i" + i, light, Lane.INTERACTIVE, DEADLINE), T0 + 100 + i);
            }
        }

        QueueHeads heads = store.queue().heads(MODEL, 3, T0 + 1_000);

        for (Lane lane : Lane.values()) {
            String l = lane == Lane.BULK ? "-b" : "-i";
            Map<String, List<String>> byTenant = ids(heads.workByTenant(lane));
            assertThat(byTenant).as(lane.toString()).containsOnlyKeys("heavy", "light-1", "light-2", "light-3");
            assertThat(byTenant.get("heavy")).containsExactly("heavy" + l + 0, "heavy" + l + 1, "heavy" + l + 2);
            for (String light : List.of("light-1", "light-2", "light-3")) {
                assertThat(byTenant.get(light)).containsExactly(light + l + 0, light + l + 1);
            }
        }
        assertThat(heads.work()).hasSize(18).isSortedAccordingTo(QueueItem.HEAD_ORDER);
        assertThat(heads.overdue()).isEmpty();
        assertThat(store.queue().depth(MODEL, T0 + 1_000)).isEqualTo(92);
    }

    @Test
    void aTenantsHeadsAreItsOldestItemsOldestFirstWhicheverShardsTheyWentTo() {
        // enqueued in a scrambled order, so the round-robin shards do not follow age
        int[] ages = {7, 2, 11, 0, 5, 9, 1, 10, 4, 8, 3, 6};
        for (int i = 0; i < ages.length; i++) {
            store.queue().enqueue(request("a" + ages[i], "tenant-a", Lane.BULK, DEADLINE), T0 + ages[i] * 10L);
            store.queue().enqueue(request("b" + ages[i], "tenant-b", Lane.BULK, DEADLINE), T0 + ages[i] * 10L + 5);
        }

        Map<String, List<String>> byTenant = ids(store.queue().heads(MODEL, 5, T0 + 1_000).workByTenant(Lane.BULK));

        assertThat(byTenant.get("tenant-a")).containsExactly("a0", "a1", "a2", "a3", "a4");
        assertThat(byTenant.get("tenant-b")).containsExactly("b0", "b1", "b2", "b3", "b4");
        assertThat(store.queue().heads(MODEL, 1, T0 + 1_000).work()).extracting(QueueItem::requestId)
                .containsExactly("a0", "b0");
    }

    @Test
    void aRequeuedRequestGoesBackToTheFrontOfItsTenant() {
        store.queue().enqueue(request("a1", "tenant-a", Lane.INTERACTIVE, DEADLINE), T0);
        store.queue().enqueue(request("a2", "tenant-a", Lane.INTERACTIVE, DEADLINE), T0 + 1);
        store.queue().enqueue(request("a3", "tenant-a", Lane.INTERACTIVE, DEADLINE), T0 + 2);
        store.queue().enqueue(request("b1", "tenant-b", Lane.INTERACTIVE, DEADLINE), T0 + 3);
        Lease lease = acquire("drainer-1", T0 + 10);
        QueueItem a1 = store.queue().heads(MODEL, 1, T0 + 10).work().get(0);
        store.queue().admit(lease, List.of(a1), T0 + 11);
        RequestRecord invoking = store.requests().transition("a1", new RequestEvent.StartInvoking(), T0 + 12)
                .record();

        Map<String, List<String>> whileInvoking = ids(store.queue().heads(MODEL, 2, T0 + 13)
                .workByTenant(Lane.INTERACTIVE));
        store.queue().requeue(invoking, new RequestEvent.Requeue(1, RequeueReason.THROTTLED, "bedrock throttled"), T0 + 14);
        QueueHeads after = store.queue().heads(MODEL, 2, T0 + 15);

        assertThat(a1.requestId()).isEqualTo("a1");
        assertThat(whileInvoking).containsExactly(Map.entry("tenant-a", List.of("a2", "a3")),
                Map.entry("tenant-b", List.of("b1")));
        assertThat(ids(after.workByTenant(Lane.INTERACTIVE))).containsExactly(
                Map.entry("tenant-a", List.of("a1", "a2")), Map.entry("tenant-b", List.of("b1")));
        assertThat(after.work().get(0)).isEqualTo(a1);
        assertThat(store.queue().depth(MODEL, T0 + 15)).isEqualTo(4);
    }

    @Test
    void admittingAndExpiringTakeItemsOutOfTheirTenantsHeads() {
        store.queue().enqueue(request("a-late", "tenant-a", Lane.BULK, T0 + 500), T0);
        store.queue().enqueue(request("a-fine", "tenant-a", Lane.BULK, DEADLINE), T0 + 1);
        store.queue().enqueue(request("b-only", "tenant-b", Lane.BULK, DEADLINE), T0 + 2);
        store.queue().enqueue(request("c-only", "tenant-c", Lane.INTERACTIVE, DEADLINE), T0 + 3);
        long now = T0 + 1_000;
        QueueHeads before = store.queue().heads(MODEL, 5, now);
        Lease lease = acquire("drainer-1", now);

        AdmitResult admit = store.queue().admit(lease, before.workByTenant(Lane.BULK).get("tenant-b"), now + 1);
        TransitionResult expired = store.queue().expire(before.overdue().get(0), now + 2);
        QueueHeads after = store.queue().heads(MODEL, 5, now + 3);

        assertThat(before.overdue()).extracting(QueueItem::requestId).containsExactly("a-late");
        assertThat(before.work()).extracting(QueueItem::requestId).containsExactly("c-only", "a-fine", "b-only");
        assertThat(admit.admitted()).extracting(QueueItem::requestId).containsExactly("b-only");
        assertThat(expired.applied()).isTrue();
        assertThat(after.work()).extracting(QueueItem::requestId).containsExactly("c-only", "a-fine");
        assertThat(after.overdue()).isEmpty();
        assertThat(after.workByTenant(Lane.BULK)).containsOnlyKeys("tenant-a");
        assertThat(store.queue().depth(MODEL, now + 3)).isEqualTo(2);
    }

    @Test
    void aTenantWhoseOldestItemsAreOverdueIsStillReachedAndTheyAreReported() {
        for (int i = 0; i < 7; i++) {
            store.queue().enqueue(request("a-late" + i, "tenant-a", Lane.BULK, T0 + 500), T0 + i);
        }
        for (int i = 0; i < 4; i++) {
            store.queue().enqueue(request("a-fine" + i, "tenant-a", Lane.BULK, DEADLINE), T0 + 10 + i);
        }
        store.queue().enqueue(request("a-late-after", "tenant-a", Lane.BULK, T0 + 500), T0 + 20);
        store.queue().enqueue(request("b-fine", "tenant-b", Lane.BULK, DEADLINE), T0 + 30);

        QueueHeads heads = store.queue().heads(MODEL, 2, T0 + 1_000);

        assertThat(ids(heads.workByTenant(Lane.BULK))).containsExactly(
                Map.entry("tenant-a", List.of("a-fine0", "a-fine1")), Map.entry("tenant-b", List.of("b-fine")));
        assertThat(heads.overdue()).extracting(QueueItem::requestId)
                .containsExactly("a-late0", "a-late1", "a-late2", "a-late3", "a-late4", "a-late5", "a-late6");
        assertThat(store.queue().depth(MODEL, T0 + 1_000)).isEqualTo(5);
    }

    @Test
    void tenantsAreToldApartWhateverTheirNamesAndTheirItemsLeaveTheQueue() {
        List<String> tenants = List.of("arn:aws:sts::123456789012:assumed-role/app-role/session#1",
                "arn:aws:sts::123456789012:assumed-role/app-role/session#2", "tenant with spaces, é and $",
                "arn:aws:iam::123456789012:user/" + "x".repeat(2_000));
        for (int i = 0; i < tenants.size(); i++) {
            NewRequest request = NewRequest.builder().requestId("t" + i).tenant(tenants.get(i)).modelKey(MODEL)
                    .lane(Lane.INTERACTIVE).deadlineMillis(DEADLINE).estimate(TokenUsage.of(10, 10))
                    .payloadRef(ref("t" + i)).build();
            store.queue().enqueue(request, T0 + i);
        }

        QueueHeads heads = store.queue().heads(MODEL, 1, T0 + 10);
        AdmitResult admit = store.queue().admit(acquire("drainer-1", T0 + 11), heads.work(), T0 + 11);

        assertThat(heads.workByTenant(Lane.INTERACTIVE)).containsOnlyKeys(tenants);
        assertThat(heads.work()).extracting(QueueItem::tenant).containsExactlyElementsOf(tenants);
        assertThat(admit.admitted()).hasSize(4);
        assertThat(store.queue().heads(MODEL, 1, T0 + 12).isEmpty()).isTrue();
        assertThat(store.queue().depth(MODEL, T0 + 12)).isZero();
    }

    @Test
    void repeatedReadsFollowTheQueueAsTenantsComeAndGo() {
        Random random = new Random(20_240_611);
        List<String> tenants = List.of("heavy", "t1", "t2", "t3");
        Map<String, QueueItem> live = new HashMap<>();
        Map<String, RequestRecord> invoking = new HashMap<>();
        Lease lease = acquire("drainer-1", T0);
        long now = T0;
        int next = 0;
        for (int step = 0; step < 30; step++) {
            now += 1_000;
            int enqueues = random.nextInt(12);
            for (int i = 0; i < enqueues; i++) {
                String tenant = random.nextInt(3) == 0 ? tenants.get(1 + random.nextInt(3)) : "heavy";
                Lane lane = random.nextInt(4) == 0 ? Lane.INTERACTIVE : Lane.BULK;
                long deadline = random.nextInt(8) == 0 ? now + 2_500 : DEADLINE;
                long at = now - random.nextInt(900);
                EnqueueResult result = store.queue().enqueue(request("q" + next++, tenant, lane, deadline), at);
                live.put(result.record().requestId(), QueueItem.of(result.record()));
            }
            int limit = 1 + random.nextInt(4);
            long readAt = now;
            QueueHeads heads = store.queue().heads(MODEL, limit, readAt);

            assertThat(heads).as("step %d, limit %d", step, limit).isEqualTo(expectedHeads(live.values(), limit, readAt));
            assertThat(store.queue().depth(MODEL, readAt)).isEqualTo(
                    live.values().stream().filter(item -> !item.isOverdue(readAt)).count());

            List<QueueItem> pick = new ArrayList<>(heads.work());
            Collections.shuffle(pick, random);
            for (QueueItem admitted : store.queue().admit(lease, pick.subList(0, Math.min(4, pick.size())), now)
                    .admitted()) {
                live.remove(admitted.requestId());
                if (random.nextBoolean()) {
                    invoking.put(admitted.requestId(), store.requests().transition(admitted.requestId(),
                            new RequestEvent.StartInvoking(), now).record());
                }
            }
            if (!invoking.isEmpty() && random.nextBoolean()) {
                RequestRecord back = invoking.remove(invoking.keySet().iterator().next());
                TransitionResult requeued = store.queue().requeue(back, new RequestEvent.Requeue(1, RequeueReason.THROTTLED, "throttled"), now);
                if (requeued.applied()) {
                    live.put(back.requestId(), QueueItem.of(requeued.record()));
                }
            }
            for (QueueItem overdue : heads.overdue()) {
                store.queue().expire(overdue, now);
                live.remove(overdue.requestId());
            }
            lease = store.leases().renew(lease, 60_000, now).orElseThrow();
        }
        assertThat(next).as("enough traffic to matter").isGreaterThan(100);
    }

    /**
     * What {@code heads} must return for these live queue items, worked out apart from the
     * adapters: per lane and tenant, oldest first, overdue items until the limit of work is reached.
     */
    private static QueueHeads expectedHeads(Collection<QueueItem> live, int limit, long now) {
        Map<String, List<QueueItem>> flows = new TreeMap<>();
        for (QueueItem item : live) {
            flows.computeIfAbsent(item.lane() + "/" + item.tenant(), key -> new ArrayList<>()).add(item);
        }
        List<QueueItem> work = new ArrayList<>();
        List<QueueItem> overdue = new ArrayList<>();
        for (List<QueueItem> flow : flows.values()) {
            flow.sort(QueueItem.HEAD_ORDER);
            int taken = 0;
            for (QueueItem item : flow) {
                if (taken == limit) {
                    break;
                }
                if (item.isOverdue(now)) {
                    overdue.add(item);
                } else {
                    work.add(item);
                    taken++;
                }
            }
        }
        work.sort(QueueItem.HEAD_ORDER);
        overdue.sort(QueueItem.HEAD_ORDER);
        return new QueueHeads(work, overdue);
    }

    private static Map<String, List<String>> ids(Map<String, List<QueueItem>> byTenant) {
        Map<String, List<String>> ids = new LinkedHashMap<>();
        byTenant.forEach((tenant, items) -> ids.put(tenant, items.stream().map(QueueItem::requestId).toList()));
        return ids;
    }

    // ---- lifecycle

    @Test
    void aRequestGoesQueuedAdmittedInvokingSucceeded() {
        store.queue().enqueue(request("life", Lane.INTERACTIVE, DEADLINE), T0);
        Lease lease = acquire("drainer-1", T0 + 10);
        QueueItem head = store.queue().heads(MODEL, 1, T0 + 10).work().get(0);

        AdmitResult admit = store.queue().admit(lease, List.of(head), T0 + 20);
        TransitionResult invoking = store.requests().transition("life", new RequestEvent.StartInvoking(), T0 + 30);
        PayloadRef result = store.payloads().put("life", PayloadKind.RESULT, Payload.json("{\"output\":1}"),
                DEADLINE);
        TransitionResult done = store.requests().transition("life",
                new RequestEvent.Succeed(TokenUsage.of(100, 20), result), T0 + 40);

        assertThat(admit.admitted()).containsExactly(head);
        assertThat(admit.refused()).isEmpty();
        assertThat(invoking.applied()).isTrue();
        assertThat(done.applied()).isTrue();
        RequestRecord record = store.requests().find("life", T0 + 50).orElseThrow();
        assertThat(record).isEqualTo(done.record());
        assertThat(record.state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(record.httpStatus()).isEqualTo(200);
        assertThat(record.admittedAtMillis()).isEqualTo(T0 + 20);
        assertThat(record.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(record.startedAtMillis()).isEqualTo(T0 + 30);
        assertThat(record.finishedAtMillis()).isEqualTo(T0 + 40);
        assertThat(record.updatedAtMillis()).isEqualTo(T0 + 40);
        assertThat(record.actualUsage()).isEqualTo(TokenUsage.of(100, 20));
        assertThat(record.resultRef()).isEqualTo(result);
        assertThat(store.queue().heads(MODEL, 10, T0 + 50).work()).isEmpty();
    }

    @Test
    void unsettledListsTheAdmittedAndInvokingRequestsAdmittedBeforeATimeOldestFirst() {
        for (String id : List.of("u1", "u2", "u3", "u4", "u5")) {
            store.queue().enqueue(request(id, Lane.INTERACTIVE, DEADLINE), T0);
        }
        Lease lease = acquire("drainer-1", T0 + 10);
        admitOne(lease, "u1", T0 + 100);
        admitOne(lease, "u2", T0 + 200);
        admitOne(lease, "u3", T0 + 300);
        admitOne(lease, "u4", T0 + 400);
        store.requests().transition("u2", new RequestEvent.StartInvoking(), T0 + 500);
        store.requests().transition("u3", new RequestEvent.StartInvoking(), T0 + 500);
        PayloadRef result = store.payloads().put("u3", PayloadKind.RESULT, Payload.json("{\"output\":1}"), DEADLINE);
        store.requests().transition("u3", new RequestEvent.RecordAnswer(TokenUsage.of(10, 2), result), T0 + 600);
        store.requests().transition("u4", new RequestEvent.StartInvoking(), T0 + 500);
        store.requests().transition("u4", RequestEvent.Fail.of(FailureReason.MODEL_TIMEOUT, "gone"), T0 + 700);

        List<RequestRecord> before = eventually(() -> store.queue().unsettled(MODEL, T0 + 350, 10, T0 + 800),
                found -> found.size() == 3);
        List<RequestRecord> first = store.queue().unsettled(MODEL, T0 + 10_000, 1, T0 + 800);

        assertThat(before).extracting(RequestRecord::requestId).containsExactly("u1", "u2", "u3");
        assertThat(before).extracting(RequestRecord::state)
                .containsExactly(RequestState.ADMITTED, RequestState.INVOKING, RequestState.INVOKING);
        assertThat(before.get(2).isAnswered()).isTrue();
        assertThat(before.get(2).resultRef()).isEqualTo(result);
        assertThat(before.get(2).actualUsage()).isEqualTo(TokenUsage.of(10, 2));
        assertThat(first).extracting(RequestRecord::requestId).containsExactly("u1");
    }

    @Test
    void aRequestLeavesTheUnsettledOnesWhenItEndsOrGoesBackToTheQueue() {
        store.queue().enqueue(request("done", Lane.INTERACTIVE, DEADLINE), T0);
        store.queue().enqueue(request("back", Lane.INTERACTIVE, DEADLINE), T0);
        store.queue().enqueue(request("late", Lane.INTERACTIVE, DEADLINE), T0);
        Lease lease = acquire("drainer-1", T0 + 10);
        admitOne(lease, "done", T0 + 100);
        admitOne(lease, "back", T0 + 100);
        admitOne(lease, "late", T0 + 100);
        store.requests().transition("done", new RequestEvent.StartInvoking(), T0 + 200);
        PayloadRef result = store.payloads().put("done", PayloadKind.RESULT, Payload.json("{}"), DEADLINE);
        store.requests().transition("done", new RequestEvent.Succeed(TokenUsage.of(1, 1), result), T0 + 300);
        RequestRecord invoking = store.requests().transition("back", new RequestEvent.StartInvoking(), T0 + 200)
                .record();
        store.queue().requeue(invoking, new RequestEvent.Requeue(1, RequeueReason.THROTTLED, "429"), T0 + 300);
        store.queue().expire(QueueItem.of(store.requests().find("late", T0 + 300).orElseThrow()), T0 + 300);

        List<RequestRecord> left = eventually(() -> store.queue().unsettled(MODEL, T0 + 10_000, 10, T0 + 400),
                List::isEmpty);

        assertThat(left).isEmpty();
    }

    private void admitOne(Lease lease, String requestId, long nowMillis) {
        QueueItem item = QueueItem.of(store.requests().find(requestId, nowMillis).orElseThrow());
        assertThat(store.queue().admit(lease, List.of(item), nowMillis).admitted()).containsExactly(item);
    }

    /** The unsettled index may trail the table (a global secondary index is eventually consistent). */
    private static <T> T eventually(java.util.function.Supplier<T> read, java.util.function.Predicate<T> done) {
        T value = read.get();
        for (int attempt = 0; attempt < 50 && !done.test(value); attempt++) {
            Thread.onSpinWait();
            value = read.get();
        }
        return value;
    }

    @Test
    void theDeliveryStateOfAFinishedRequestIsStoredAndNeverTakenBackOnceDelivered() {
        store.queue().enqueue(request("hooked", Lane.INTERACTIVE, DEADLINE), T0);
        DeliveryState queued = DeliveryState.queued(T0 + 10);
        assertThat(store.requests().recordDelivery("hooked", queued, T0 + 10).applied())
                .as("not before the request has ended").isFalse();
        store.requests().transition("hooked", RequestEvent.Fail.of(FailureReason.INVALID_REQUEST, "no"), T0 + 20);

        assertThat(store.requests().recordDelivery("hooked", queued, T0 + 30).applied()).isTrue();
        DeliveryState failed = queued.failed(503, "HTTP 503", T0 + 40, T0 + 70);
        assertThat(store.requests().recordDelivery("hooked", failed, T0 + 40).applied()).isTrue();
        TransitionResult stale = store.requests().recordDelivery("hooked", queued, T0 + 50);
        assertThat(stale.applied()).as("a late queued write does not take the attempts back").isFalse();
        assertThat(stale.record().delivery()).isEqualTo(failed);
        DeliveryState delivered = failed.succeeded(200, T0 + 70);
        assertThat(store.requests().recordDelivery("hooked", delivered, T0 + 70).applied()).isTrue();
        assertThat(store.requests().recordDelivery("hooked", failed.failed(500, "HTTP 500", T0 + 80, T0 + 90),
                T0 + 80).applied()).as("nothing replaces a delivered webhook").isFalse();

        RequestRecord record = store.requests().find("hooked", T0 + 90).orElseThrow();
        assertThat(record.delivery()).isEqualTo(delivered);
        assertThat(record.state()).isEqualTo(RequestState.FAILED);
        assertThat(store.requests().recordDelivery("nobody", queued, T0 + 90).outcome())
                .isEqualTo(TransitionResult.Outcome.UNKNOWN_REQUEST);
    }

    @Test
    void aFinishedRequestIsHandedOffOnceAndTheMarkKeepsAnAttemptAlreadyRecorded() {
        store.queue().enqueue(request("handed", Lane.INTERACTIVE, DEADLINE), T0);
        assertThat(store.requests().recordHandoff("handed", true, T0 + 10).applied())
                .as("not before the request has ended").isFalse();
        store.requests().transition("handed", RequestEvent.Fail.of(FailureReason.INVALID_REQUEST, "no"), T0 + 20);
        store.requests().recordDelivery("handed", DeliveryState.notHandedOff("queue unreachable"), T0 + 25);

        TransitionResult marked = store.requests().recordHandoff("handed", true, T0 + 30);

        assertThat(marked.applied()).isTrue();
        assertThat(marked.record().handedOffAtMillis()).isEqualTo(T0 + 30);
        assertThat(marked.record().delivery()).as("the failure is cleared").isEqualTo(DeliveryState.queued(T0 + 30));
        assertThat(store.requests().recordHandoff("handed", true, T0 + 40).applied()).as("once").isFalse();
        assertThat(store.requests().find("handed", T0 + 50).orElseThrow().handedOffAtMillis()).isEqualTo(T0 + 30);

        store.queue().enqueue(request("raced", Lane.INTERACTIVE, DEADLINE), T0);
        store.requests().transition("raced", RequestEvent.Fail.of(FailureReason.INVALID_REQUEST, "no"), T0 + 20);
        DeliveryState attempted = DeliveryState.queued(T0 + 20).failed(503, "HTTP 503", T0 + 25, T0 + 55);
        store.requests().recordDelivery("raced", attempted, T0 + 25);
        TransitionResult late = store.requests().recordHandoff("raced", true, T0 + 30);
        assertThat(late.applied()).isTrue();
        assertThat(late.record().isHandedOff()).isTrue();
        assertThat(late.record().delivery()).as("the attempt made before the mark stays").isEqualTo(attempted);

        store.queue().enqueue(request("silent", Lane.INTERACTIVE, DEADLINE), T0);
        store.requests().transition("silent", RequestEvent.Fail.of(FailureReason.INVALID_REQUEST, "no"), T0 + 20);
        store.requests().recordDelivery("silent", DeliveryState.notHandedOff("bus unreachable"), T0 + 25);
        TransitionResult withoutWebhook = store.requests().recordHandoff("silent", false, T0 + 30);
        assertThat(withoutWebhook.record().delivery()).as("no webhook, the failure cleared").isNull();
        assertThat(store.requests().recordHandoff("nobody", true, T0 + 30).outcome())
                .isEqualTo(TransitionResult.Outcome.UNKNOWN_REQUEST);
    }

    @Test
    void aThrottledRequestGoesBackToItsPlaceInTheQueueOnce() {
        store.queue().enqueue(request("first", Lane.INTERACTIVE, DEADLINE), T0);
        store.queue().enqueue(request("second", Lane.INTERACTIVE, DEADLINE), T0 + 1);
        Lease lease = acquire("drainer-1", T0 + 10);
        QueueItem head = store.queue().heads(MODEL, 1, T0 + 10).work().get(0);
        store.queue().admit(lease, List.of(head), T0 + 20);
        RequestRecord invoking = store.requests().transition("first", new RequestEvent.StartInvoking(), T0 + 30)
                .record();

        RequestEvent.Requeue requeue = new RequestEvent.Requeue(1, RequeueReason.THROTTLED, "bedrock throttled");
        TransitionResult back = store.queue().requeue(invoking, requeue, T0 + 40);
        TransitionResult again = store.queue().requeue(invoking, requeue, T0 + 41);

        assertThat(back.applied()).isTrue();
        assertThat(back.record().state()).isEqualTo(RequestState.QUEUED);
        assertThat(back.record().requeues()).isEqualTo(1);
        assertThat(back.record().requeueReason()).isEqualTo(RequeueReason.THROTTLED);
        assertThat(store.requests().find("first", T0 + 50).orElseThrow()).isEqualTo(back.record());
        assertThat(again.outcome()).isEqualTo(TransitionResult.Outcome.REFUSED);
        assertThat(store.queue().heads(MODEL, 10, T0 + 50).work()).extracting(QueueItem::requestId)
                .containsExactly("first", "second");
        assertThat(store.queue().depth(MODEL, T0 + 50)).isEqualTo(2);
    }

    @Test
    void eachRequeueReasonIsStoredAndReadBack() {
        for (RequeueReason reason : RequeueReason.values()) {
            String id = "why-" + reason.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
            store.queue().enqueue(request(id, Lane.INTERACTIVE, DEADLINE), T0);
            Lease lease = store.leases().current(MODEL, T0 + 10).orElseGet(() -> acquire("drainer-1", T0 + 10));
            store.queue().admit(lease, List.of(QueueItem.of(store.requests().find(id, T0 + 10).orElseThrow())),
                    T0 + 20);
            RequestRecord current = reason == RequeueReason.STALE_ADMISSION
                    ? store.requests().find(id, T0 + 30).orElseThrow()
                    : store.requests().transition(id, new RequestEvent.StartInvoking(), T0 + 30).record();

            TransitionResult back = store.queue().requeue(current,
                    new RequestEvent.Requeue(reason.isCounted() ? 1 : 0, reason, "why: " + reason), T0 + 40);

            assertThat(back.applied()).as(reason.name()).isTrue();
            RequestRecord stored = store.requests().find(id, T0 + 50).orElseThrow();
            assertThat(stored).isEqualTo(back.record());
            assertThat(stored.requeueReason()).isEqualTo(reason);
            assertThat(stored.detail()).isEqualTo("why: " + reason);
        }
        assertThat(store.queue().depth(MODEL, T0 + 50)).isEqualTo(RequeueReason.values().length);
    }

    @Test
    void aStaleAdmissionGoesBackFromAdmittedToItsPlaceWithoutSpendingARequeue() {
        store.queue().enqueue(request("stale", Lane.INTERACTIVE, DEADLINE), T0);
        store.queue().enqueue(request("later", Lane.INTERACTIVE, DEADLINE), T0 + 1);
        Lease lease = acquire("drainer-1", T0 + 10);
        store.queue().admit(lease, store.queue().heads(MODEL, 1, T0 + 10).work(), T0 + 20);
        RequestRecord admitted = store.requests().find("stale", T0 + 30).orElseThrow();
        RequestEvent.Requeue stale = new RequestEvent.Requeue(0, RequeueReason.STALE_ADMISSION, "too old");

        TransitionResult back = store.queue().requeue(admitted, stale, T0 + 5_000);
        TransitionResult again = store.queue().requeue(admitted, stale, T0 + 5_001);
        TransitionResult claim = store.requests().transition("stale", new RequestEvent.StartInvoking(), T0 + 5_002);

        assertThat(back.applied()).isTrue();
        assertThat(back.record().state()).isEqualTo(RequestState.QUEUED);
        assertThat(back.record().requeues()).isZero();
        assertThat(back.record().requeueReason()).isEqualTo(RequeueReason.STALE_ADMISSION);
        assertThat(again.outcome()).as("only once").isEqualTo(TransitionResult.Outcome.REFUSED);
        assertThat(claim.outcome()).as("a late delivery finds nothing to claim").isEqualTo(
                TransitionResult.Outcome.REFUSED);
        assertThat(store.queue().heads(MODEL, 10, T0 + 5_010).work()).extracting(QueueItem::requestId)
                .containsExactly("stale", "later");
    }

    @Test
    void aStaleAdmissionIsNotSentBackOnceItsCallHasBegun() {
        store.queue().enqueue(request("begun", Lane.INTERACTIVE, DEADLINE), T0);
        Lease lease = acquire("drainer-1", T0 + 10);
        store.queue().admit(lease, store.queue().heads(MODEL, 1, T0 + 10).work(), T0 + 20);
        RequestRecord admitted = store.requests().find("begun", T0 + 30).orElseThrow();
        store.requests().transition("begun", new RequestEvent.StartInvoking(), T0 + 40);

        TransitionResult back = store.queue().requeue(admitted,
                new RequestEvent.Requeue(0, RequeueReason.STALE_ADMISSION, "too old"), T0 + 50);

        assertThat(back.outcome()).isEqualTo(TransitionResult.Outcome.REFUSED);
        assertThat(back.record().state()).isEqualTo(RequestState.INVOKING);
        assertThat(store.queue().depth(MODEL, T0 + 60)).isZero();
    }

    @Test
    void aTenantIsTheCallersIamPrincipalArnAndIsStoredAsGiven() {
        String tenant = "arn:aws:sts::123456789012:assumed-role/app-role/session-1";
        NewRequest request = NewRequest.builder().requestId("iam").tenant(tenant).modelKey(MODEL)
                .lane(Lane.INTERACTIVE).deadlineMillis(DEADLINE).estimate(TokenUsage.of(10, 10)).payloadRef(ref("iam"))
                .build();

        store.queue().enqueue(request, T0);

        assertThat(store.requests().find("iam", T0 + 1).orElseThrow().tenant()).isEqualTo(tenant);
        assertThat(store.queue().heads(MODEL, 1, T0 + 1).work().get(0).tenant()).isEqualTo(tenant);
    }

    // ---- task tokens

    @Test
    void theTaskTokenIsStoredWithTheRequestAtEnqueue() {
        store.queue().enqueue(request("token", Lane.INTERACTIVE, DEADLINE), T0);

        assertThat(store.requests().taskToken("token", T0 + 1)).contains("token-token");
        assertThat(store.requests().taskToken("never-stored", T0 + 1)).isEmpty();
    }

    @Test
    void aRepeatedEnqueueKeepsTheFirstTaskToken() {
        store.queue().enqueue(request("token", Lane.INTERACTIVE, DEADLINE), T0);

        NewRequest repeat = NewRequest.builder().requestId("token").tenant("tenant-1").modelKey(MODEL)
                .deadlineMillis(DEADLINE).estimate(TokenUsage.of(1_000, 500)).payloadRef(ref("token"))
                .taskToken("another-token").build();
        assertThat(store.queue().enqueue(repeat, T0 + 1_000).created()).isFalse();

        assertThat(store.requests().taskToken("token", T0 + 1_000)).contains("token-token");
    }

    @Test
    void aRequestEnqueuedWithoutATaskTokenHasNone() {
        NewRequest local = NewRequest.builder().requestId("local").tenant("tenant-1").modelKey(MODEL)
                .deadlineMillis(DEADLINE).estimate(TokenUsage.of(1_000, 500)).payloadRef(ref("local")).build();

        store.queue().enqueue(local, T0);

        assertThat(store.requests().find("local", T0 + 1)).isPresent();
        assertThat(store.requests().taskToken("local", T0 + 1)).isEmpty();
    }

    @Test
    void aPendingRequestTakesANewTaskTokenAndAnEndedOneRefusesIt() {
        store.queue().enqueue(request("token", Lane.INTERACTIVE, DEADLINE), T0);

        TransitionResult replaced = store.requests().replaceTaskToken("token", "retried-token", T0 + 1);
        assertThat(store.requests().taskToken("token", T0 + 1)).contains("retried-token");
        store.requests().transition("token", RequestEvent.Fail.of(FailureReason.DEPENDENCY_ERROR, "x"), T0 + 2);
        TransitionResult late = store.requests().replaceTaskToken("token", "too-late", T0 + 3);

        assertThat(replaced.applied()).isTrue();
        assertThat(replaced.record().state()).isEqualTo(RequestState.QUEUED);
        assertThat(late.outcome()).isEqualTo(TransitionResult.Outcome.REFUSED);
        assertThat(late.record().state()).isEqualTo(RequestState.FAILED);
        assertThat(store.requests().taskToken("token", T0 + 3)).contains("retried-token");
        assertThat(store.requests().replaceTaskToken("never-stored", "t", T0).outcome())
                .isEqualTo(TransitionResult.Outcome.UNKNOWN_REQUEST);
        assertThat(store.requests().taskToken("never-stored", T0)).isEmpty();
    }

    @Test
    void aRequestWithoutATaskTokenTakesOneOnAReplace() {
        NewRequest local = NewRequest.builder().requestId("tokenless").tenant("tenant-1").modelKey(MODEL)
                .deadlineMillis(DEADLINE).estimate(TokenUsage.of(1_000, 500)).payloadRef(ref("tokenless")).build();
        store.queue().enqueue(local, T0);

        assertThat(store.requests().replaceTaskToken("tokenless", "redriven", T0 + 1).applied()).isTrue();

        assertThat(store.requests().taskToken("tokenless", T0 + 1)).contains("redriven");
    }

    @Test
    void theTaskTokenIsGoneWithTheRequestsRetention() {
        RequestRecord old = store.queue().enqueue(request("old", Lane.BULK, T0 + 1_000), T0).record();
        store.requests().replaceTaskToken("old", "replaced", T0 + 1);
        long after = old.expiresAtMillis();

        assertThat(store.requests().taskToken("old", after - 1)).contains("replaced");
        assertThat(store.requests().taskToken("old", after)).isEmpty();
        NewRequest reused = NewRequest.builder().requestId("old").tenant("tenant-1").modelKey(MODEL)
                .deadlineMillis(after + 60_000).estimate(TokenUsage.of(1_000, 500)).payloadRef(ref("old")).build();
        assertThat(store.queue().enqueue(reused, after).created()).isTrue();
        assertThat(store.requests().taskToken("old", after + 1)).isEmpty();
    }

    @Test
    void findAllReturnsTheLiveRecordsOfTheKnownIds() {
        for (int i = 0; i < 101; i++) {
            store.queue().enqueue(request("many-" + i, Lane.BULK, DEADLINE), T0);
        }
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 101; i++) {
            ids.add("many-" + i);
        }
        ids.add("never-stored");

        Map<String, RequestRecord> found = store.requests().findAll(ids, T0 + 1);

        assertThat(found).hasSize(101);
        assertThat(found.get("many-100").state()).isEqualTo(RequestState.QUEUED);
        assertThat(found).doesNotContainKey("never-stored");
    }

    @Test
    void aThrottledRequestPastItsDeadlineIsNotRequeued() {
        store.queue().enqueue(request("late", Lane.INTERACTIVE, T0 + 100), T0);
        Lease lease = acquire("drainer-1", T0 + 10);
        store.queue().admit(lease, store.queue().heads(MODEL, 1, T0 + 10).work(), T0 + 20);
        RequestRecord invoking = store.requests().transition("late", new RequestEvent.StartInvoking(), T0 + 30)
                .record();

        TransitionResult result = store.queue().requeue(invoking, new RequestEvent.Requeue(1, RequeueReason.THROTTLED, "throttled"), T0 + 100);

        assertThat(result.outcome()).isEqualTo(TransitionResult.Outcome.REFUSED);
        assertThat(result.record()).isEqualTo(invoking);
        assertThat(store.queue().depth(MODEL, T0 + 50)).isZero();
    }

    @Test
    void aTransitionFromTheWrongStateIsRefusedWithTheCurrentRecord() {
        RequestRecord queued = store.queue().enqueue(request("wrong", Lane.INTERACTIVE, DEADLINE), T0).record();

        TransitionResult result = store.requests().transition("wrong", new RequestEvent.StartInvoking(), T0 + 1);

        assertThat(result.outcome()).isEqualTo(TransitionResult.Outcome.REFUSED);
        assertThat(result.record()).isEqualTo(queued);
    }

    @Test
    void aTerminalStateNeverChanges() {
        store.queue().enqueue(request("term", Lane.INTERACTIVE, DEADLINE), T0);
        RequestRecord failed = store.requests().transition("term",
                RequestEvent.Fail.of(FailureReason.DEPENDENCY_ERROR, "bedrock 503"), T0 + 1).record();

        List<RequestEvent> attempts = List.of(new RequestEvent.StartInvoking(),
                new RequestEvent.Succeed(TokenUsage.of(1, 1), ref("term")),
                RequestEvent.Fail.of(FailureReason.THROTTLED, "again"), new RequestEvent.Expire(),
                new RequestEvent.Reject(FailureReason.THROTTLED, "late"));
        for (RequestEvent event : attempts) {
            TransitionResult result = store.requests().transition("term", event, T0 + 2);
            assertThat(result.outcome()).as(event.toString()).isEqualTo(TransitionResult.Outcome.REFUSED);
            assertThat(result.record()).isEqualTo(failed);
        }
        assertThat(failed.state()).isEqualTo(RequestState.FAILED);
        assertThat(failed.failureReason()).isEqualTo(FailureReason.DEPENDENCY_ERROR);
        assertThat(failed.detail()).isEqualTo("bedrock 503");
        assertThat(failed.httpStatus()).isEqualTo(503);
        assertThat(store.requests().find("term", T0 + 3)).contains(failed);
    }

    @Test
    void theLoserOfARaceLearnsTheWinnersOutcome() throws Exception {
        store.queue().enqueue(request("race", Lane.INTERACTIVE, DEADLINE), T0);
        List<Callable<TransitionResult>> racers = List.of(
                () -> store.requests().transition("race", new RequestEvent.Expire(), T0 + 1),
                () -> store.requests().transition("race",
                        new RequestEvent.Reject(FailureReason.THROTTLED, "cannot meet deadline"), T0 + 1));

        List<TransitionResult> results = new ArrayList<>();
        for (Future<TransitionResult> f : pool.invokeAll(racers)) {
            results.add(f.get());
        }

        assertThat(results).filteredOn(TransitionResult::applied).hasSize(1);
        TransitionResult winner = results.stream().filter(TransitionResult::applied).findFirst().orElseThrow();
        TransitionResult loser = results.stream().filter(r -> !r.applied()).findFirst().orElseThrow();
        assertThat(loser.outcome()).isEqualTo(TransitionResult.Outcome.REFUSED);
        assertThat(loser.record()).isEqualTo(winner.record());
    }

    @Test
    void aTransitionOfAnUnknownRequestSaysSo() {
        TransitionResult result = store.requests().transition("ghost", new RequestEvent.Expire(), T0);

        assertThat(result.outcome()).isEqualTo(TransitionResult.Outcome.UNKNOWN_REQUEST);
        assertThat(result.requestId()).isEqualTo("ghost");
    }

    @Test
    void admissionOnlyGoesThroughTheFencedQueue() {
        store.queue().enqueue(request("direct", Lane.INTERACTIVE, DEADLINE), T0);

        assertThatThrownBy(() -> store.requests().transition("direct", new RequestEvent.Admit(1), T0 + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.requests().find("direct", T0 + 1).orElseThrow().state()).isEqualTo(RequestState.QUEUED);
    }

    @Test
    void admittingAnItemPastItsDeadlineIsRefusedAndExpiringItRemovesIt() {
        store.queue().enqueue(request("slow", Lane.INTERACTIVE, T0 + 100), T0);
        QueueItem item = store.queue().heads(MODEL, 1, T0 + 50).work().get(0);
        Lease lease = acquire("drainer-1", T0 + 150);

        AdmitResult admit = store.queue().admit(lease, List.of(item), T0 + 150);

        assertThat(admit.admitted()).isEmpty();
        assertThat(admit.refused()).singleElement().satisfies(r -> assertThat(r.state()).isEqualTo(RequestState.QUEUED));
        assertThat(store.queue().heads(MODEL, 1, T0 + 150).overdue()).containsExactly(item);

        TransitionResult expired = store.queue().expire(item, T0 + 160);

        assertThat(expired.applied()).isTrue();
        assertThat(expired.record().state()).isEqualTo(RequestState.EXPIRED);
        assertThat(expired.record().failureReason()).isEqualTo(FailureReason.DEADLINE_EXPIRED);
        assertThat(expired.record().httpStatus()).isEqualTo(504);
        QueueHeads after = store.queue().heads(MODEL, 1, T0 + 170);
        assertThat(after.work()).isEmpty();
        assertThat(after.overdue()).isEmpty();
    }

    @Test
    void admittingARequestThatLeftTheQueueRemovesItsLeftoverItem() {
        store.queue().enqueue(request("gone", Lane.INTERACTIVE, DEADLINE), T0);
        store.queue().enqueue(request("next", Lane.INTERACTIVE, DEADLINE), T0 + 1);
        List<QueueItem> heads = store.queue().heads(MODEL, 10, T0 + 2).work();
        store.requests().transition("gone", new RequestEvent.Reject(FailureReason.THROTTLED, "eta"), T0 + 3);
        Lease lease = acquire("drainer-1", T0 + 4);

        AdmitResult admit = store.queue().admit(lease, heads, T0 + 5);

        assertThat(admit.admitted()).extracting(QueueItem::requestId).containsExactly("next");
        assertThat(admit.refused()).singleElement().satisfies(r -> {
            assertThat(r.requestId()).isEqualTo("gone");
            assertThat(r.state()).isEqualTo(RequestState.REJECTED);
        });
        assertThat(store.queue().heads(MODEL, 10, T0 + 6).work()).isEmpty();
        assertThat(store.queue().heads(MODEL, 10, T0 + 6).overdue()).isEmpty();
    }

    @Test
    void admissionHandlesBatchesLargerThanOneTransaction() {
        for (int i = 0; i < 60; i++) {
            store.queue().enqueue(request("batch" + i, Lane.BULK, DEADLINE), T0 + i);
        }
        Lease lease = acquire("drainer-1", T0 + 100);
        List<QueueItem> heads = store.queue().heads(MODEL, 60, T0 + 100).work();

        AdmitResult admit = store.queue().admit(lease, heads, T0 + 101);

        assertThat(admit.admitted()).hasSize(60);
        assertThat(store.queue().depth(MODEL, T0 + 102)).isZero();
        assertThat(store.requests().find("batch59", T0 + 102).orElseThrow().state())
                .isEqualTo(RequestState.ADMITTED);
    }

    // ---- leases

    @Test
    void aLeaseIsGrantedToOneHolderAndTheOtherLearnsWhoHoldsIt() {
        LeaseAttempt first = store.leases().acquire(MODEL, "a", 30_000, T0);
        LeaseAttempt second = store.leases().acquire(MODEL, "b", 30_000, T0 + 1);

        assertThat(first.granted()).isTrue();
        assertThat(first.lease()).isEqualTo(new Lease(MODEL, "a", 1, T0 + 30_000));
        assertThat(second.granted()).isFalse();
        assertThat(second.lease()).isEqualTo(first.lease());
        assertThat(store.leases().current(MODEL, T0 + 2)).contains(first.lease());
    }

    @Test
    void anExpiredLeaseIsTakenOverWithAHigherFencingToken() {
        Lease first = store.leases().acquire(MODEL, "a", 1_000, T0).lease();

        LeaseAttempt takeover = store.leases().acquire(MODEL, "b", 1_000, T0 + 1_000);

        assertThat(takeover.granted()).isTrue();
        assertThat(takeover.lease().fencingToken()).isEqualTo(first.fencingToken() + 1);
        assertThat(store.leases().renew(first, 1_000, T0 + 1_001)).isEmpty();
        assertThat(store.leases().release(first, T0 + 1_001)).isFalse();
        assertThat(store.leases().current(MODEL, T0 + 1_001)).contains(takeover.lease());
    }

    @Test
    void renewalExtendsOnlyALeaseThatIsStillHeld() {
        Lease lease = store.leases().acquire(MODEL, "a", 1_000, T0).lease();

        Lease renewed = store.leases().renew(lease, 5_000, T0 + 900).orElseThrow();

        assertThat(renewed).isEqualTo(new Lease(MODEL, "a", lease.fencingToken(), T0 + 5_900));
        assertThat(store.leases().acquire(MODEL, "b", 1_000, T0 + 2_000).granted()).isFalse();
        assertThat(store.leases().renew(renewed, 1_000, T0 + 5_900)).isEmpty();
    }

    @Test
    void releaseHandsTheLeaseToASuccessorAndTheTokenKeepsCounting() {
        Lease first = store.leases().acquire(MODEL, "a", 60_000, T0).lease();

        assertThat(store.leases().release(first, T0 + 10)).isTrue();
        assertThat(store.leases().current(MODEL, T0 + 10)).isEmpty();
        Lease successor = store.leases().acquire(MODEL, "b", 60_000, T0 + 10).lease();

        assertThat(successor.fencingToken()).isEqualTo(2);
        assertThat(store.leases().holds(successor, T0 + 11)).isTrue();
        assertThat(store.leases().holds(first, T0 + 11)).isFalse();
    }

    @Test
    void aStaleHoldersAdmissionIsRejectedAndChangesNothing() {
        store.queue().enqueue(request("fenced", Lane.INTERACTIVE, DEADLINE), T0);
        Lease stale = store.leases().acquire(MODEL, "a", 1_000, T0).lease();
        Lease current = store.leases().acquire(MODEL, "b", 60_000, T0 + 1_000).lease();
        List<QueueItem> heads = store.queue().heads(MODEL, 10, T0 + 1_001).work();

        assertThatThrownBy(() -> store.queue().admit(stale, heads, T0 + 1_001))
                .isInstanceOf(LeaseLostException.class);

        assertThat(store.requests().find("fenced", T0 + 1_002).orElseThrow().state())
                .isEqualTo(RequestState.QUEUED);
        assertThat(store.queue().heads(MODEL, 10, T0 + 1_002).work()).isEqualTo(heads);
        assertThat(store.queue().admit(current, heads, T0 + 1_003).admitted()).isEqualTo(heads);
    }

    // ---- usage

    @Test
    void aSettlementIsRecordedOnceAndSummedByBucket() {
        assertThat(store.usage().record(settlement("u1", T0, 100, 10), T0 + 1)).isTrue();
        assertThat(store.usage().record(settlement("u1", T0, 100, 10), T0 + 2)).isFalse();
        assertThat(store.usage().record(settlement("u2", T0 + 5_000, 50, 5), T0 + 6_000)).isTrue();
        assertThat(store.usage().record(settlement("u3", T0 + 120_000, 7, 7), T0 + 121_000)).isTrue();

        long bucket = SHARDING.bucketStart(T0);
        UsageTotals firstMinute = store.usage().totals(MODEL, bucket, bucket + 60_000, T0 + 200_000);
        UsageTotals all = store.usage().totals(MODEL, bucket, bucket + 180_000, T0 + 200_000);

        assertThat(firstMinute.settlements()).isEqualTo(2);
        assertThat(firstMinute.usage()).isEqualTo(TokenUsage.of(150, 15));
        assertThat(firstMinute.charge()).isEqualTo(new Charge(2, 165, 150, 15));
        assertThat(all.settlements()).isEqualTo(3);
        assertThat(store.usage().totals("other", bucket, bucket + 180_000, T0 + 200_000)).isEqualTo(UsageTotals.NONE);
    }

    @Test
    void settlementsPastTheirRetentionNoLongerCount() {
        store.usage().record(settlement("u1", T0, 100, 10), T0 + 1);
        long bucket = SHARDING.bucketStart(T0);
        long expiry = SHARDING.expiresAt(T0);

        assertThat(store.usage().totals(MODEL, bucket, bucket + 60_000, expiry - 1).settlements()).isEqualTo(1);
        assertThat(store.usage().totals(MODEL, bucket, bucket + 60_000, expiry).settlements()).isZero();
    }

    // ---- payloads

    @Test
    void aSmallPayloadIsStoredInlineAndReadBackExactly() {
        Payload body = Payload.json("{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"héllo\"}]}]}");

        PayloadRef ref = store.payloads().put("p1", PayloadKind.REQUEST, body, DEADLINE);

        assertThat(ref.location()).isEqualTo(PayloadRef.Location.INLINE);
        assertThat(ref.sizeBytes()).isEqualTo(body.size());
        assertThat(store.payloads().get(ref, T0)).contains(body);
        assertThat(store.payloads().put("p1", PayloadKind.REQUEST, body, DEADLINE)).isEqualTo(ref);
    }

    @Test
    void aPayloadOverTheItemLimitGoesToObjectStorageUntruncated() {
        Payload body = Payload.json(jsonOfSize(600 * 1024));

        PayloadRef ref = store.payloads().put("p2", PayloadKind.RESULT, body, DEADLINE);

        assertThat(ref.location()).isEqualTo(PayloadRef.Location.OBJECT);
        Payload read = store.payloads().get(ref, T0).orElseThrow();
        assertThat(read).isEqualTo(body);
        assertThat(read.size()).isEqualTo(600 * 1024);
    }

    @Test
    void anOversizePayloadIsRefusedAndNothingIsWritten() {
        Payload body = Payload.json(jsonOfSize(POLICY.maxBytes() + 1));
        PayloadRef wouldBe = new PayloadRef(PayloadRef.Location.OBJECT, "p3", PayloadKind.REQUEST, body.sha256(),
                body.size(), RequestRecord.ceilToSecond(DEADLINE));

        assertThatThrownBy(() -> store.payloads().put("p3", PayloadKind.REQUEST, body, DEADLINE))
                .isInstanceOf(InvalidPayloadException.class).hasMessageContaining("over the limit");
        assertThat(store.payloads().get(wouldBe, T0)).isEmpty();
    }

    @Test
    void malformedJsonIsRefusedWithWhereItBroke() {
        assertThatThrownBy(() -> Payload.json("{\"messages\": [}")).isInstanceOf(InvalidPayloadException.class)
                .hasMessageContaining("not valid JSON").hasMessageContaining("line 1");
        assertThatThrownBy(() -> Payload.json("[1, 2]")).isInstanceOf(InvalidPayloadException.class)
                .hasMessageContaining("must be a JSON object");
        assertThatThrownBy(() -> Payload.json("{} {}")).isInstanceOf(InvalidPayloadException.class)
                .hasMessageContaining("after the JSON object");
    }

    @Test
    void anExpiredPayloadIsNoLongerServed() {
        Payload body = Payload.json("{\"a\":1}");
        PayloadRef ref = store.payloads().put("p4", PayloadKind.REQUEST, body, T0 + 10_000);

        assertThat(store.payloads().get(ref, T0 + 9_999)).contains(body);
        assertThat(store.payloads().get(ref, T0 + 10_000)).isEmpty();
    }

    // ---- helpers

    protected Lease acquire(String owner, long now) {
        LeaseAttempt attempt = store.leases().acquire(MODEL, owner, 60_000, now);
        assertThat(attempt.granted()).as("lease granted to " + owner).isTrue();
        return attempt.lease();
    }

    protected static NewRequest request(String id, Lane lane, long deadline) {
        return request(id, "tenant-1", lane, deadline);
    }

    protected static NewRequest request(String id, String tenant, Lane lane, long deadline) {
        return NewRequest.builder().requestId(id).tenant(tenant).modelKey(MODEL).lane(lane)
                .deadlineMillis(deadline).estimate(TokenUsage.of(1_000, 500)).payloadRef(ref(id))
                .taskToken("token-" + id).build();
    }

    protected static PayloadRef ref(String id) {
        return new PayloadRef(PayloadRef.Location.INLINE, id, PayloadKind.REQUEST, "0".repeat(64), 2,
                RequestRecord.ceilToSecond(DEADLINE + NewRequest.DEFAULT_RETENTION_MILLIS));
    }

    private static Settlement settlement(String id, long startedAt, long input, long output) {
        TokenUsage usage = TokenUsage.of(input, output);
        return new Settlement(MODEL, id, "tenant-1", startedAt, usage,
                Charge.settlement(Quota.tokensPerMinute(1_000_000), usage));
    }

    static String jsonOfSize(int bytes) {
        String head = "{\"text\":\"";
        String tail = "\"}";
        return head + IntStream.range(0, bytes - head.length() - tail.length())
                .mapToObj(i -> String.valueOf((char) ('a' + i % 26))).collect(Collectors.joining()) + tail;
    }

}
