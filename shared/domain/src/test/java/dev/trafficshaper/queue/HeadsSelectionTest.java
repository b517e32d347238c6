package dev.trafficshaper.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class HeadsSelectionTest {

    private static final long NOW = 1_000_000;

    @Test
    void aFlowKeepsItsOldestWorkAndTheOverdueItemsAheadOfItsLastAndIsThenFull() {
        HeadsSelection selection = HeadsSelection.create(2, NOW);

        List<Boolean> takesMore = List.of(
                selection.offer(item("late-1", "a", Lane.BULK, 1, NOW)),
                selection.offer(item("work-1", "a", Lane.BULK, 2, NOW + 1)),
                selection.offer(item("gone", "a", Lane.BULK, 3, NOW + 1, NOW)),
                selection.offer(item("late-2", "a", Lane.BULK, 4, NOW - 5)),
                selection.offer(item("work-2", "a", Lane.BULK, 5, NOW + 1)),
                selection.offer(item("late-3", "a", Lane.BULK, 6, NOW)),
                selection.offer(item("work-3", "a", Lane.BULK, 7, NOW + 1)));
        QueueHeads heads = selection.heads();

        assertThat(takesMore).containsExactly(true, true, true, true, false, false, false);
        assertThat(heads.work()).extracting(QueueItem::requestId).containsExactly("work-1", "work-2");
        assertThat(heads.overdue()).extracting(QueueItem::requestId).containsExactly("late-1", "late-2");
    }

    @Test
    void flowsAreCutApartAndListedInHeadOrder() {
        HeadsSelection selection = HeadsSelection.create(1, NOW);
        selection.offer(item("b-bulk", "b", Lane.BULK, 1, NOW + 1));
        selection.offer(item("a-bulk", "a", Lane.BULK, 3, NOW + 1));
        selection.offer(item("a-bulk-2", "a", Lane.BULK, 4, NOW + 1));
        selection.offer(item("a-interactive", "a", Lane.INTERACTIVE, 9, NOW + 1));
        selection.offer(item("b-interactive", "b", Lane.INTERACTIVE, 2, NOW + 1));

        QueueHeads heads = selection.heads();

        assertThat(heads.work()).extracting(QueueItem::requestId)
                .containsExactly("b-interactive", "a-interactive", "b-bulk", "a-bulk");
        assertThat(heads.workByTenant(Lane.BULK)).containsOnlyKeys("b", "a");
        assertThatThrownBy(() -> HeadsSelection.create(0, NOW)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * What the table adapter relies on: cutting each shard's items apart, then cutting the union
     * of what the shards kept, gives the same heads as cutting the whole queue at once.
     */
    @Property(tries = 300)
    void cuttingShardByShardThenTheUnionEqualsCuttingTheWholeQueue(@ForAll("queues") List<QueueItem> queue,
                                                                   @ForAll @IntRange(min = 1, max = 5) int limit) {
        Map<Integer, List<QueueItem>> shards = new TreeMap<>();
        queue.forEach(item -> shards.computeIfAbsent(item.shard(), s -> new ArrayList<>()).add(item));
        List<QueueItem> keptByShards = new ArrayList<>();
        for (List<QueueItem> shard : shards.values()) {
            QueueHeads kept = QueueHeads.select(shard, limit, NOW);
            keptByShards.addAll(kept.work());
            keptByShards.addAll(kept.overdue());
        }

        assertThat(QueueHeads.select(keptByShards, limit, NOW)).isEqualTo(QueueHeads.select(queue, limit, NOW));
    }

    @Provide
    Arbitrary<List<QueueItem>> queues() {
        Arbitrary<QueueItem> item = Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.of(Lane.values()),
                Arbitraries.of("t1", "t2", "t3"),
                Arbitraries.longs().between(0, 40),
                Arbitraries.integers().between(0, 9),
                Arbitraries.integers().between(0, 19)).as((shard, lane, tenant, age, deadline, retention) ->
                new QueueItem("m", shard, lane, age, tenant + "-" + lane + "-" + age + "-" + shard, tenant,
                        deadline < 3 ? NOW : NOW + 1, TokenUsage.of(1, 1), retention == 0 ? NOW : NOW + 10_000));
        return item.list().ofMaxSize(60).uniqueElements(QueueItem::requestId);
    }

    private static QueueItem item(String id, String tenant, Lane lane, long enqueuedAt, long deadline) {
        return item(id, tenant, lane, enqueuedAt, deadline, NOW + 60_000);
    }

    private static QueueItem item(String id, String tenant, Lane lane, long enqueuedAt, long deadline, long expiresAt) {
        return new QueueItem("m", 0, lane, enqueuedAt, id, tenant, deadline, TokenUsage.of(1, 1), expiresAt);
    }
}
