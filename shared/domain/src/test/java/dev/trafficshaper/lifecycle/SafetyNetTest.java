package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.FALLBACK;
import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.PACED;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sweep over the fixture's three models, on a fake clock. */
class SafetyNetTest {

    private static final long LATER = T0 + 600_000;
    private static final long SOON = T0 + 1_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final SafetyNet net = SafetyNet.builder().catalog(shaper.catalog).queue(shaper.queue)
            .leases(shaper.leases).wake(shaper.wake).callback(shaper.callback).metrics(shaper.metrics).build();

    @Test
    void aQueueHoldingOnlyOverdueItemsIsExpiredWithoutWakingADrainer() {
        shaper.enqueue("late-1", PACED, SOON);
        shaper.enqueue("late-2", PACED, SOON);
        shaper.clock.set(SOON + 1);

        SafetyNet.Sweep sweep = net.sweep(shaper.now());

        assertThat(sweep.expired()).containsExactly(Map.entry(PACED, 2));
        assertThat(sweep.woken()).isEmpty();
        assertThat(shaper.wakes).isEmpty();
        for (String id : List.of("late-1", "late-2")) {
            assertThat(shaper.record(id).state()).isEqualTo(RequestState.EXPIRED);
        }
        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactlyInAnyOrder("late-1", "late-2");
        assertThat(shaper.metrics.events).containsExactlyInAnyOrder("outcome late-1 EXPIRED", "outcome late-2 EXPIRED");
        assertThat(shaper.queue.heads(PACED, 10, shaper.now()).overdue()).as("nothing left to expire").isEmpty();
    }

    @Test
    void queuedWorkWithoutALeaseHolderWakesADrainer() {
        shaper.enqueue("r1", MODEL, LATER);

        SafetyNet.Sweep sweep = net.sweep(shaper.now());

        assertThat(sweep.woken()).containsExactly(MODEL);
        assertThat(shaper.wakes).containsExactly(MODEL);
        assertThat(sweep.expired()).isEmpty();
        assertThat(shaper.record("r1").state()).isEqualTo(RequestState.QUEUED);
    }

    @Test
    void overdueItemsAheadOfWorkAreExpiredAndTheWorkWakesADrainer() {
        shaper.enqueue("late", PACED, SOON);
        shaper.clock.advance(10);
        shaper.enqueue("fresh", PACED, LATER);
        shaper.clock.set(SOON + 1);

        SafetyNet.Sweep sweep = net.sweep(shaper.now());

        assertThat(sweep.expired()).containsExactly(Map.entry(PACED, 1));
        assertThat(sweep.woken()).containsExactly(PACED);
        assertThat(shaper.record("late").state()).isEqualTo(RequestState.EXPIRED);
        assertThat(shaper.record("fresh").state()).isEqualTo(RequestState.QUEUED);
    }

    @Test
    void aModelWhoseLeaseIsHeldIsLeftToItsDrainer() {
        shaper.enqueue("late", PACED, SOON);
        shaper.enqueue("r1", PACED, LATER);
        shaper.leases.acquire(PACED, "running-drainer", 30_000, shaper.now());
        shaper.clock.set(SOON + 1);

        SafetyNet.Sweep sweep = net.sweep(shaper.now());

        assertThat(sweep.leased()).containsExactly(PACED);
        assertThat(sweep.woken()).isEmpty();
        assertThat(sweep.expired()).isEmpty();
        assertThat(shaper.record("late").state()).as("the holder expires it on its next heads read")
                .isEqualTo(RequestState.QUEUED);
    }

    @Test
    void aLeaseThatRanOutNoLongerShieldsTheModel() {
        shaper.enqueue("r1", PACED, LATER);
        shaper.leases.acquire(PACED, "crashed-drainer", 30_000, shaper.now());
        shaper.clock.advance(30_001);

        assertThat(net.sweep(shaper.now()).woken()).containsExactly(PACED);
    }

    @Test
    void anEmptyCatalogOfQueuesWakesNobody() {
        SafetyNet.Sweep sweep = net.sweep(shaper.now());

        assertThat(sweep.woken()).isEmpty();
        assertThat(sweep.expired()).isEmpty();
        assertThat(sweep.leased()).isEmpty();
        assertThat(shaper.wakes).isEmpty();
    }

    @Test
    void aDrainerAfterTheSweepFindsNothingLeftToExpireAndResumesNothingTwice() throws Exception {
        shaper.enqueue("late", FALLBACK, SOON);
        shaper.clock.set(SOON + 1);

        assertThat(net.sweep(shaper.now()).expiredTotal()).isEqualTo(1);
        assertThat(net.sweep(shaper.now()).expiredTotal()).as("a second sweep").isZero();
        DrainService drainer = DrainService.builder().catalog(shaper.catalog).queue(shaper.queue)
                .requests(shaper.requests).leases(shaper.leases).board(shaper.board)
                .dispatch((model, id) -> { }).wake(shaper.wake).callback(shaper.callback).clock(shaper.clock).build();
        assertThat(drainer.drain(FALLBACK, "late-drainer", Long.MAX_VALUE).expired()).isZero();

        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactly("late");
    }

    @Test
    void expiresAtMostTheConfiguredNumberPerModelAndSweepAndTheRestNextTime() {
        SafetyNet capped = SafetyNet.builder().catalog(shaper.catalog).queue(shaper.queue).leases(shaper.leases)
                .wake(shaper.wake).callback(shaper.callback).maxExpiriesPerModel(2).build();
        for (int i = 1; i <= 3; i++) {
            shaper.enqueue("late-" + i, PACED, SOON);
        }
        shaper.clock.set(SOON + 1);

        assertThat(capped.sweep(shaper.now()).expired()).containsExactly(Map.entry(PACED, 2));
        assertThat(capped.sweep(shaper.now()).expired()).containsExactly(Map.entry(PACED, 1));
        assertThat(shaper.resumed).hasSize(3);
    }
}
