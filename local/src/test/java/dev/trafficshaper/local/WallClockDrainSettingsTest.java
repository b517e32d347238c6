package dev.trafficshaper.local;

import static dev.trafficshaper.lifecycle.ShaperFixture.PACED;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.EnqueueResult;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.TransitionResult;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drainer of a runtime whose clock runs ten times as fast, on a fake clock, against a queue
 * whose heads read takes 3.5 wall seconds (35 s of the runtime's clock), as the emulator's did for
 * a 200-request backlog. With the lengths of {@link DrainSettings#defaults()} read on the fast
 * clock the 30 s lease ends during the first read and nothing is admitted; with
 * {@link WallClockDrainSettings} the lease lasts its 30 wall seconds and the queue drains.
 */
@Timeout(10)
class WallClockDrainSettingsTest {

    private static final double SCALE = 10;
    private static final long HEADS_READ_MILLIS = (long) (3_500 * SCALE);
    private static final long LATER = T0 + 3_600_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final InvocationService invocations = shaper.invocations(bedrock);

    {
        shaper.clock.failAfter(T0 + 3_600_000);
    }

    @Test
    void withTheDefaultLengthsOnAFastClockASlowHeadsReadOutlastsTheLeaseAndNothingIsAdmitted() throws Exception {
        enqueue(5);

        DrainService.Report report = drainer(DrainSettings.defaults(), HEADS_READ_MILLIS)
                .drain(PACED, "local-paced", Long.MAX_VALUE);

        assertThat(report.leaseGranted()).isTrue();
        assertThat(report.admitted()).isZero();
        assertThat(report.stoppedBecause()).isNotEqualTo("idle");
        assertThat(shaper.record("r1").state()).isEqualTo(RequestState.QUEUED);
    }

    @Test
    void withWallClockLengthsTheLeaseOutlastsTheSlowReadsAndEveryRequestIsAdmittedOnce() throws Exception {
        enqueue(5);

        DrainService.Report report = drainer(WallClockDrainSettings.of(DrainSettings.defaults(), SCALE),
                HEADS_READ_MILLIS).drain(PACED, "local-paced", Long.MAX_VALUE);

        assertThat(report.admitted()).isEqualTo(5);
        assertThat(report.stoppedBecause()).isEqualTo("idle");
        for (int i = 1; i <= 5; i++) {
            assertThat(shaper.record("r" + i).state()).isEqualTo(RequestState.SUCCEEDED);
            assertThat(bedrock.callsFor("r" + i)).isEqualTo(1);
        }
    }

    @Test
    void aHeadsReadSlowerThanTheRefreshPeriodStillLeavesTheDrainerTimeToAdmit() throws Exception {
        enqueue(5);
        long slowerThanTheRefresh = 3 * DrainSettings.defaults().headsRefreshMillis();

        DrainService.Report report = drainer(DrainSettings.defaults(), slowerThanTheRefresh)
                .drain(PACED, "local-paced", Long.MAX_VALUE);

        assertThat(report.admitted()).isEqualTo(5);
        assertThat(report.stoppedBecause()).isEqualTo("idle");
    }

    @Test
    void theBookkeepingLengthsAreMultipliedByTheScaleAndTheRequestsTimesAreNot() {
        DrainSettings base = DrainSettings.defaults();

        DrainSettings scaled = WallClockDrainSettings.of(base, SCALE);

        assertThat(scaled.leaseMillis()).isEqualTo(300_000);
        assertThat(scaled.headsRefreshMillis()).isEqualTo(base.headsRefreshMillis() * 10);
        assertThat(scaled.pollMillis()).isEqualTo(base.pollMillis() * 10);
        assertThat(scaled.statusMillis()).isEqualTo(base.statusMillis() * 10);
        assertThat(scaled.depthMillis()).isEqualTo(base.depthMillis() * 10);
        assertThat(scaled.dispatchRetryMillis()).isEqualTo(base.dispatchRetryMillis() * 10);
        assertThat(scaled.stuckMillis()).isEqualTo(base.stuckMillis());
        assertThat(scaled.admitLookaheadMillis()).isEqualTo(base.admitLookaheadMillis());
        assertThat(WallClockDrainSettings.of(base, 1)).isEqualTo(base);
    }

    private void enqueue(int count) {
        for (int i = 1; i <= count; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }
    }

    private DrainService drainer(DrainSettings settings, long headsReadMillis) {
        return DrainService.builder().catalog(shaper.catalog).queue(new SlowHeads(shaper.queue, headsReadMillis))
                .requests(shaper.requests).leases(shaper.leases).board(shaper.board)
                .dispatch((model, requestId) -> invocations.process(requestId)).wake(shaper.wake)
                .callback(shaper.callback).metrics(shaper.metrics).clock(shaper.clock).settings(settings).build();
    }

    /**
     * The fixture's queue, each heads read taking {@code readMillis} of the fake clock; a drainer
     * that does nothing but read (each read due again once it ends) fails the test.
     */
    private final class SlowHeads implements RequestQueue {
        private static final int MAX_READS = 200;

        private final RequestQueue queue;
        private final long readMillis;
        private int reads;

        SlowHeads(RequestQueue queue, long readMillis) {
            this.queue = queue;
            this.readMillis = readMillis;
        }

        @Override
        public QueueHeads heads(String modelKey, int limitPerTenant, long nowMillis) {
            if (++reads > MAX_READS) {
                throw new AssertionError(MAX_READS + " heads reads for 5 requests: the drainer only reads");
            }
            QueueHeads heads = queue.heads(modelKey, limitPerTenant, nowMillis);
            shaper.clock.advance(readMillis);
            return heads;
        }

        @Override
        public EnqueueResult enqueue(NewRequest request, long nowMillis) {
            return queue.enqueue(request, nowMillis);
        }

        @Override
        public AdmitResult admit(Lease lease, List<QueueItem> items, long nowMillis) {
            return queue.admit(lease, items, nowMillis);
        }

        @Override
        public TransitionResult requeue(RequestRecord current, RequestEvent.Requeue event, long nowMillis) {
            return queue.requeue(current, event, nowMillis);
        }

        @Override
        public TransitionResult expire(QueueItem item, long nowMillis) {
            return queue.expire(item, nowMillis);
        }

        @Override
        public List<RequestRecord> unsettled(String modelKey, long admittedBeforeMillis, int limit, long nowMillis) {
            return queue.unsettled(modelKey, admittedBeforeMillis, limit, nowMillis);
        }

        @Override
        public long depth(String modelKey, long nowMillis) {
            return queue.depth(modelKey, nowMillis);
        }
    }
}
