package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sweeper over the fixture's in-memory ports, on a fake clock. */
class SweeperTest {

    private static final long DEADLINE = T0 + 600_000;
    private static final long GRACE = Sweeper.GRACE.toMillis();

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final List<String> dispatched = new ArrayList<>();
    private final InvocationService processor = shaper.invocations(bedrock);
    private final Sweeper sweeper = Sweeper.create(shaper.queue, shaper.requests, processor,
            (model, id) -> dispatched.add(id), shaper.callback, shaper.metrics);

    @Test
    void anAdmissionNobodyDispatchedIsDispatchedAgainOnceItIsOlderThanTheGrace() {
        shaper.enqueue("orphan", MODEL, DEADLINE);
        shaper.admit("orphan");

        shaper.clock.advance(GRACE);
        Sweeper.Report early = sweep();
        shaper.clock.advance(1);
        Sweeper.Report late = sweep();

        assertThat(early).isEqualTo(Sweeper.Report.NONE);
        assertThat(late.redispatched()).isEqualTo(1);
        assertThat(dispatched).containsExactly("orphan");
    }

    @Test
    void theRedispatchedAdmissionIsSentBackAsStaleAndTheClaimStillAllowsOneCall() {
        shaper.enqueue("orphan", MODEL, DEADLINE);
        shaper.admit("orphan");
        shaper.clock.advance(GRACE + 1);
        sweep();

        assertThat(processor.process("orphan")).isEqualTo(InvocationService.Result.STALE);
        assertThat(processor.process("orphan")).isEqualTo(InvocationService.Result.DUPLICATE);

        assertThat(shaper.record("orphan").state()).as("back for the drainer to admit afresh")
                .isEqualTo(RequestState.QUEUED);
        assertThat(bedrock.calls()).isEmpty();
    }

    @Test
    void anAdmissionPastItsDeadlineIsExpiredAndItsWorkflowResumed() {
        shaper.enqueue("late", MODEL, T0 + 10_000);
        shaper.admit("late");
        shaper.clock.set(T0 + 10_000 + GRACE);

        Sweeper.Report report = sweep();

        assertThat(report.expired()).isEqualTo(1);
        assertThat(shaper.record("late").state()).isEqualTo(RequestState.EXPIRED);
        assertThat(shaper.record("late").httpStatus()).isEqualTo(504);
        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactly("late");
        assertThat(dispatched).isEmpty();
    }

    @Test
    void aProcessorThatStoppedAfterTheAnswerIsFinishedFromTheStoredAnswer() {
        shaper.enqueue("answered", MODEL, DEADLINE);
        shaper.admit("answered");
        shaper.requests.transition("answered", new RequestEvent.StartInvoking(), shaper.now());
        PayloadRef result = shaper.payloads.put("answered", PayloadKind.RESULT, Payload.json("{\"output\":1}"),
                shaper.record("answered").expiresAtMillis());
        shaper.requests.transition("answered", new RequestEvent.RecordAnswer(TokenUsage.of(12, 34), result),
                shaper.now());
        shaper.clock.advance(GRACE + 1);

        Sweeper.Report report = sweep();
        Sweeper.Report again = sweep();

        assertThat(report.finished()).isEqualTo(1);
        assertThat(again).isEqualTo(Sweeper.Report.NONE);
        RequestRecord done = shaper.record("answered");
        assertThat(done.state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(done.resultRef()).isEqualTo(result);
        assertThat(done.actualUsage()).isEqualTo(TokenUsage.of(12, 34));
        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactly("answered");
        assertThat(shaper.metrics.events).contains("outcome answered SUCCEEDED");
        assertThat(bedrock.calls()).isEmpty();
    }

    @Test
    void theProcessorRecordsTheAnswerBeforeItsTerminalWrite() {
        shaper.enqueue("r1", MODEL, DEADLINE);
        shaper.admit("r1");
        List<RequestState> seenBySettlement = new ArrayList<>();
        InvocationService watched = InvocationService.builder().catalog(shaper.catalog).requests(shaper.requests)
                .queue(shaper.queue).payloads(shaper.payloads).invoker(bedrock).callback(shaper.callback)
                .wake(shaper.wake).clock(shaper.clock).usage(new dev.trafficshaper.usage.UsageLedger() {
                    @Override
                    public boolean record(dev.trafficshaper.usage.Settlement settlement, long nowMillis) {
                        RequestRecord at = shaper.record(settlement.requestId());
                        seenBySettlement.add(at.state());
                        assertThat(at.isAnswered()).isTrue();
                        return true;
                    }

                    @Override
                    public dev.trafficshaper.usage.UsageTotals totals(String modelKey, long fromMillis, long toMillis,
                                                                     long nowMillis) {
                        return shaper.usage.totals(modelKey, fromMillis, toMillis, nowMillis);
                    }
                }).build();

        assertThat(watched.process("r1")).isEqualTo(InvocationService.Result.SUCCEEDED);
        assertThat(seenBySettlement).containsExactly(RequestState.INVOKING);
    }

    @Test
    void aProcessorThatStoppedDuringTheCallEndsAsAModelTimeoutAfterTheCallsEnd() {
        shaper.enqueue("lost", MODEL, T0 + 60_000);
        shaper.admit("lost");
        shaper.requests.transition("lost", new RequestEvent.StartInvoking(), shaper.now());

        shaper.clock.set(T0 + 60_000 + GRACE - 1);
        Sweeper.Report during = sweep();
        shaper.clock.advance(1);
        Sweeper.Report after = sweep();

        assertThat(during).isEqualTo(Sweeper.Report.NONE);
        assertThat(after.timedOut()).isEqualTo(1);
        RequestRecord failed = shaper.record("lost");
        assertThat(failed.failureReason()).isEqualTo(FailureReason.MODEL_TIMEOUT);
        assertThat(failed.httpStatus()).isEqualTo(504);
        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactly("lost");
        assertThat(dispatched).as("a call that may have run is never sent again").isEmpty();
    }

    @Test
    void aCrashedDrainersAdmissionsAreServedByTheNextDrainerWhichSweepsAsItStarts() throws Exception {
        for (int i = 1; i <= 3; i++) {
            shaper.enqueue("r" + i, MODEL, DEADLINE);
            shaper.admit("r" + i); // written ADMITTED by a drainer that crashed before dispatching
        }
        shaper.leases.release(shaper.leases.current(MODEL, shaper.now()).orElseThrow(), shaper.now());
        shaper.clock.advance(GRACE + 1);
        List<String> sent = new ArrayList<>();
        InvocationService inline = shaper.invocations(bedrock);
        Sweeper drainersSweeper = Sweeper.create(shaper.queue, shaper.requests, inline,
                (model, id) -> { sent.add(id); inline.process(id); }, shaper.callback, shaper.metrics);
        DrainService drainer = DrainService.builder().catalog(shaper.catalog).queue(shaper.queue)
                .requests(shaper.requests).leases(shaper.leases).board(shaper.board)
                .dispatch((model, id) -> { sent.add(id); inline.process(id); }).wake(shaper.wake)
                .callback(shaper.callback).clock(shaper.clock).sweeper(drainersSweeper).build();

        drainer.drain(MODEL, "successor", Long.MAX_VALUE);

        for (int i = 1; i <= 3; i++) {
            assertThat(shaper.record("r" + i).state()).as("r" + i).isEqualTo(RequestState.SUCCEEDED);
            assertThat(bedrock.callsFor("r" + i)).as("r" + i).isEqualTo(1);
        }
        assertThat(shaper.resumed).hasSize(3);
    }

    private Sweeper.Report sweep() {
        return sweeper.sweep(shaper.catalog.require(MODEL), shaper.now());
    }
}
