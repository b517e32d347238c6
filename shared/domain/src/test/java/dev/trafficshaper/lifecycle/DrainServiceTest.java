package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.PACED;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static dev.trafficshaper.lifecycle.ShaperFixture.TENANT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.TransientKind;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drainer on a fake clock, with the Bedrock Processor run inline at dispatch. Model
 * {@code paced} allows 60 requests a minute at a target of 100% and no slow start, so the pacer's
 * spacing is one admission a second; traces list {@code +millis requestId} per dispatch.
 */
@Timeout(10)
class DrainServiceTest {

    private static final long LATER = T0 + 600_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final InvocationService invocations = shaper.invocations(bedrock);
    private final List<String> trace = new ArrayList<>();
    private boolean processInline = true;
    private final StatusBoardSpy board = new StatusBoardSpy(shaper.board);
    /** A fresh pacer per drain that exports how many it admitted, to tell whose status the board holds. */
    private final PacerHandoff handoff = new PacerHandoff() {
        @Override
        public Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis) {
            return Pacer.create(model.quota(), model.pacer());
        }

        @Override
        public String export(Pacer pacer, long nowMillis) {
            return "admitted " + pacer.snapshot(nowMillis).admitted();
        }
    };
    private final DrainService drainer = DrainService.builder().catalog(shaper.catalog).queue(shaper.queue)
            .requests(shaper.requests).leases(shaper.leases).board(board).dispatch(this::dispatch)
            .wake(shaper.wake).callback(shaper.callback).handoff(handoff).metrics(shaper.metrics)
            .clock(shaper.clock).build();

    {
        shaper.clock.failAfter(T0 + 3_600_000);
    }

    private void dispatch(String modelKey, String requestId) {
        RequestRecord admitted = shaper.record(requestId);
        trace.add("+" + (shaper.now() - T0) + " " + requestId + (admitted.fencingToken() > 1
                ? " (lease " + admitted.fencingToken() + ")" : ""));
        if (processInline) {
            invocations.process(requestId);
        }
    }

    @Test
    void admitsQueuedRequestsAtThePacersSpacingAndDispatchesEachOnce() throws Exception {
        for (int i = 1; i <= 5; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(trace).containsExactly("+0 r1", "+1000 r2", "+2000 r3", "+3000 r4", "+4000 r5");
        assertThat(report).isEqualTo(new DrainService.Report(PACED, true, 5, 0, 0, 5, "idle"));
        for (int i = 1; i <= 5; i++) {
            assertThat(shaper.record("r" + i).state()).isEqualTo(RequestState.SUCCEEDED);
            assertThat(shaper.record("r" + i).admittedAtMillis()).isEqualTo(T0 + (i - 1) * 1_000L);
            assertThat(bedrock.callsFor("r" + i)).isEqualTo(1);
        }
        assertThat(shaper.leases.current(PACED, shaper.now())).as("released when idle").isEmpty();
        assertThat(shaper.wakes).isEmpty();
        ModelStatus last = shaper.board.read(PACED).orElseThrow();
        assertThat(last.queueDepth()).isZero();
        assertThat(last.admitted()).isEqualTo(5);
        assertThat(last.publishedAtMillis()).isEqualTo(shaper.now());
    }

    @Test
    void anEmptyQueueReleasesTheLeaseAtOnce() throws Exception {
        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(report).isEqualTo(new DrainService.Report(PACED, true, 0, 0, 0, 0, "idle"));
        assertThat(shaper.now()).isEqualTo(T0);
        assertThat(shaper.leases.current(PACED, T0)).isEmpty();
        assertThat(shaper.board.read(PACED)).get().extracting(ModelStatus::queueDepth).isEqualTo(0L);
    }

    @Test
    void returnsAtOnceWhileAnotherDrainerHoldsTheLease() throws Exception {
        shaper.enqueue("r1", PACED, LATER);
        shaper.leases.acquire(PACED, "drainer-b", 30_000, T0);

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(report).isEqualTo(new DrainService.Report(PACED, false, 0, 0, 0, 0, "lease held by drainer-b"));
        assertThat(trace).isEmpty();
        assertThat(shaper.leases.current(PACED, T0)).get().extracting(lease -> lease.owner()).isEqualTo("drainer-b");
    }

    @Test
    void expiresOverdueItemsAndResumesTheirWorkflows() throws Exception {
        shaper.clock.set(T0 - 10_000);
        shaper.enqueue("stale", PACED, T0 - 1);
        shaper.clock.set(T0);
        for (int i = 1; i <= 3; i++) {
            shaper.enqueue("r" + i, PACED, T0 + 1_500);
        }

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(trace).containsExactly("+0 r1", "+1000 r2");
        assertThat(report).isEqualTo(new DrainService.Report(PACED, true, 2, 2, 0, 2, "idle"));
        assertThat(shaper.record("stale").state()).isEqualTo(RequestState.EXPIRED);
        assertThat(shaper.record("r3").state()).isEqualTo(RequestState.EXPIRED);
        assertThat(shaper.record("r3").httpStatus()).isEqualTo(504);
        assertThat(shaper.resumed).extracting(r -> r.requestId() + " " + r.state())
                .containsExactlyInAnyOrder("stale EXPIRED", "r1 SUCCEEDED", "r2 SUCCEEDED", "r3 EXPIRED");
        assertThat(shaper.queue.depth(PACED, shaper.now())).isZero();
        assertThat(shaper.queue.heads(PACED, 10, shaper.now()).overdue()).isEmpty();
        assertThat(bedrock.callsFor("r3")).isZero();
    }

    @Test
    void aTransientFailureIsRetriedWithoutLoweringTheTarget() throws Exception {
        for (int i = 1; i <= 4; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }
        bedrock.answer("r2", new BedrockOutcome.Transient(TransientKind.SERVICE_UNAVAILABLE, 503, "busy"));

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(report.throttled()).isZero();
        assertThat(report.admitted()).isEqualTo(5);
        assertThat(shaper.record("r2").state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(shaper.record("r2").requeues()).as("Bedrock did nothing: no requeue spent").isZero();
        assertThat(bedrock.callsFor("r2")).isEqualTo(2);
        assertThat(shaper.board.read(PACED).orElseThrow().target()).isEqualTo(1.0);
    }

    @Test
    void aThrottleLowersTheTargetAndTheRequestIsAdmittedAgainLater() throws Exception {
        for (int i = 1; i <= 4; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }
        bedrock.answer("r2", new BedrockOutcome.Throttled("Too many requests"));

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        // r2 is throttled at +1000 and requeued; the drainer learns of it at its next poll (+1500),
        // refunds the slot r2 did not use (r3 goes at once) and lowers the target to 80%, so the
        // spacing grows to 1.25 s: r2 again at +2500; by then the target has recovered to 80.08%,
        // so r4 follows 1,249 ms later.
        assertThat(trace).containsExactly("+0 r1", "+1000 r2", "+1500 r3", "+2500 r2", "+3749 r4");
        assertThat(report).isEqualTo(new DrainService.Report(PACED, true, 5, 0, 1, 4, "idle"));
        RequestRecord r2 = shaper.record("r2");
        assertThat(r2.state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(r2.requeues()).isEqualTo(1);
        assertThat(bedrock.callsFor("r2")).isEqualTo(2);
        ModelStatus last = shaper.board.read(PACED).orElseThrow();
        assertThat(last.throttles()).isEqualTo(1);
        assertThat(last.target()).isLessThan(0.81).isGreaterThan(0.8);
        assertThat(shaper.metrics.events).containsSubsequence("throttled paced", "requeued paced");
        assertThat(shaper.metrics.events).as("each throttle counted once").filteredOn("throttled paced"::equals)
                .hasSize(1);
    }

    @Test
    void anAdmissionPickedUpTooLateIsReleasedAndAdmittedAgainWithoutLoweringTheTarget() throws Exception {
        // The paced model's target is 1.0, so an admission may be at most 1 s old when its call
        // starts. r1's processor picks it up 1.5 s after its admission: r1 goes back to the queue,
        // the drainer learns of it at its next poll (+1500), gives the slot back, sees r1 queued
        // again at its next read of the heads and dispatches it at its new slot.
        processInline = false;
        shaper.enqueue("r1", PACED, LATER);
        shaper.enqueue("r2", PACED, LATER);
        List<InvocationService.Result> late = new ArrayList<>();
        shaper.clock.at(T0 + 1_500, clock -> late.add(invocations.process("r1")));
        shaper.clock.at(T0 + 1_000, clock -> invocations.process("r2"));

        DrainService.Report report = drainer.drain(PACED, "drainer-a", T0 + 4_000);

        assertThat(late).containsExactly(InvocationService.Result.STALE);
        assertThat(trace).containsExactly("+0 r1", "+1000 r2", "+2100 r1");
        assertThat(report.admitted()).isEqualTo(3);
        assertThat(report.throttled()).isZero();
        assertThat(shaper.record("r1").state()).isEqualTo(RequestState.ADMITTED);
        assertThat(shaper.record("r1").admittedAtMillis()).isBetween(T0 + 2_000, T0 + 2_100);
        assertThat(shaper.record("r1").requeues()).isZero();
        assertThat(bedrock.callsFor("r1")).isZero();
        assertThat(shaper.board.read(PACED).orElseThrow().target()).isEqualTo(1.0);
    }

    @Test
    void aDrainerThatLostItsLeaseMidDrainStopsAndNothingIsAdmittedTwice() throws Exception {
        for (int i = 1; i <= 6; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }
        List<DrainService.Report> successor = new ArrayList<>();
        // At +2000 drainer-a stalls past its lease (a long pause between its renewal and its next
        // admission); drainer-b takes the lease over and drains the rest meanwhile.
        board.onPublish(status -> {
            if (status.publishedAtMillis() == T0 + 2_000 && successor.isEmpty()) {
                shaper.clock.advance(31_000);
                try {
                    successor.add(drainer.drain(PACED, "drainer-b", Long.MAX_VALUE));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
        });

        DrainService.Report first = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(first).isEqualTo(new DrainService.Report(PACED, true, 2, 0, 0, 2, "lease lost"));
        assertThat(successor).containsExactly(new DrainService.Report(PACED, true, 4, 0, 0, 4, "idle"));
        assertThat(trace).containsExactly("+0 r1", "+1000 r2", "+33000 r3 (lease 2)", "+34000 r4 (lease 2)",
                "+35000 r5 (lease 2)", "+36000 r6 (lease 2)");
        for (int i = 1; i <= 6; i++) {
            assertThat(bedrock.callsFor("r" + i)).isEqualTo(1);
            assertThat(shaper.record("r" + i).state()).isEqualTo(RequestState.SUCCEEDED);
        }
        ModelStatus last = shaper.board.read(PACED).orElseThrow();
        assertThat(last.pacerState()).as("the stalled drainer must not overwrite its successor's status")
                .isEqualTo("admitted 4");
        assertThat(last.publishedAtMillis()).isEqualTo(T0 + 36_000 + DrainSettings.defaults().pollMillis());
    }

    @Test
    void atItsStopTimeTheDrainerReleasesTheLeaseAndWakesASuccessorForTheWorkLeft() throws Exception {
        for (int i = 1; i <= 5; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }

        DrainService.Report report = drainer.drain(PACED, "drainer-a", T0 + 2_500);

        assertThat(trace).containsExactly("+0 r1", "+1000 r2", "+2000 r3");
        assertThat(report.admitted()).isEqualTo(3);
        assertThat(report.stoppedBecause()).isEqualTo("time limit");
        assertThat(shaper.now()).isEqualTo(T0 + 2_500);
        assertThat(shaper.leases.current(PACED, shaper.now())).isEmpty();
        assertThat(shaper.wakes).containsExactly(PACED);
        assertThat(shaper.record("r4").state()).isEqualTo(RequestState.QUEUED);
        assertThat(shaper.record("r5").state()).isEqualTo(RequestState.QUEUED);
    }

    @Test
    void atItsStopTimeWithNothingQueuedTheDrainerWakesNobody() throws Exception {
        processInline = false;
        shaper.enqueue("r1", PACED, LATER);

        DrainService.Report report = drainer.drain(PACED, "drainer-a", T0 + 1_000);

        assertThat(report.stoppedBecause()).isEqualTo("time limit");
        assertThat(shaper.record("r1").state()).isEqualTo(RequestState.ADMITTED);
        assertThat(shaper.wakes).isEmpty();
        assertThat(shaper.leases.current(PACED, shaper.now())).isEmpty();
    }

    @Test
    void stillRunningRequestsKeepTheDrainerUntilTheySettle() throws Exception {
        processInline = false;
        shaper.enqueue("r1", PACED, LATER);
        List<InvocationService.Call> running = new ArrayList<>();
        shaper.clock.at(T0 + 500, clock -> running.add((InvocationService.Call) invocations.begin("r1")));
        shaper.clock.at(T0 + 5_000, clock -> invocations.complete(running.get(0), FakeModelInvoker.success("late")));

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(report).isEqualTo(new DrainService.Report(PACED, true, 1, 0, 0, 1, "idle"));
        assertThat(shaper.now()).isBetween(T0 + 5_000, T0 + 5_000 + DrainSettings.defaults().pollMillis());
    }

    @Test
    void anEnqueueThatRacesTheIdleReleaseIsDrainedAfterAll() throws Exception {
        shaper.enqueue("r1", PACED, LATER);
        board.onPublish(status -> {
            if (shaper.record("r1").isTerminal() && shaper.requests.find("late", shaper.now()).isEmpty()) {
                shaper.enqueue("late", PACED, LATER);
            }
        });

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(trace).containsExactly("+0 r1", "+1000 late (lease 2)");
        assertThat(report).isEqualTo(new DrainService.Report(PACED, true, 2, 0, 0, 2, "idle"));
        assertThat(shaper.wakes).isEmpty();
    }

    @Test
    void aQueueItemLeftByARequestThatEndedElsewhereIsDroppedWithoutADispatch() throws Exception {
        shaper.enqueue("r1", PACED, LATER);
        shaper.enqueue("r2", PACED, LATER);
        shaper.finalizer().finalizeRequest("r1", TENANT, "States.Aborted", "stopped by the operator", T0);

        DrainService.Report report = drainer.drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(trace).containsExactly("+0 r2");
        assertThat(report.admitted()).isEqualTo(1);
        assertThat(shaper.record("r1").state()).isEqualTo(RequestState.FAILED);
        assertThat(shaper.queue.depth(PACED, shaper.now())).isZero();
    }

    /** The status board, with a hook that runs on every publication (after it is stored). */
    private static final class StatusBoardSpy implements ModelStatusBoard {
        private final ModelStatusBoard board;
        private Consumer<ModelStatus> onPublish = status -> { };

        StatusBoardSpy(ModelStatusBoard board) {
            this.board = board;
        }

        void onPublish(Consumer<ModelStatus> hook) {
            this.onPublish = hook;
        }

        @Override
        public boolean publish(ModelStatus status, long fencingToken) {
            boolean stored = board.publish(status, fencingToken);
            onPublish.accept(status);
            return stored;
        }

        @Override
        public Optional<ModelStatus> read(String modelKey) {
            return board.read(modelKey);
        }
    }
}
