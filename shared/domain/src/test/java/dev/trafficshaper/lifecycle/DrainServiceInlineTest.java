package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.PACED;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.request.DelegatingRequestStore;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drainer running calls itself ({@link DispatchMode#INLINE}) on a fake clock. Model
 * {@code paced} admits one request a second; each call takes {@link #CALL_MILLIS} of Bedrock's
 * time. Traces list {@code +millis requestId} per call started in the drainer ({@code inline}) and
 * per asynchronous dispatch ({@code async}).
 */
@Timeout(10)
class DrainServiceInlineTest {

    private static final long LATER = T0 + 600_000;
    private static final long CALL_MILLIS = 5_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final InvocationService invocations = shaper.invocations(bedrock);
    private final ScriptedCalls calls = new ScriptedCalls();
    private final List<String> async = new ArrayList<>();
    private final CountingStore drainerReads = new CountingStore(shaper.requests);
    private final List<String> wokenWhile = new ArrayList<>();

    {
        shaper.clock.failAfter(T0 + 3_600_000);
    }

    private DrainService drainer(DrainSettings settings) {
        return DrainService.builder().catalog(shaper.catalog).queue(shaper.queue).requests(drainerReads)
                .leases(shaper.leases).board(shaper.board)
                .dispatch((model, id) -> async.add("+" + (shaper.now() - T0) + " " + id))
                .wake(model -> {
                    wokenWhile.add("+" + (shaper.now() - T0) + " running " + calls.running);
                    shaper.wakes.add(model);
                })
                .callback(shaper.callback).metrics(shaper.metrics).clock(shaper.clock).settings(settings)
                .inline(calls).build();
    }

    private static DrainSettings inline() {
        return DrainSettings.defaults().withDispatch(DispatchMode.INLINE, 256);
    }

    @Test
    void callsRunInTheDrainerOnceEachAndSettleWithoutAStatusRead() throws Exception {
        for (int i = 1; i <= 4; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }

        DrainService.Report report = drainer(inline()).drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(calls.started).containsExactly("+0 r1", "+1000 r2", "+2000 r3", "+3000 r4");
        assertThat(async).isEmpty();
        assertThat(report).isEqualTo(new DrainService.Report(PACED, true, 4, 0, 0, 4, "idle"));
        for (int i = 1; i <= 4; i++) {
            assertThat(shaper.record("r" + i).state()).isEqualTo(RequestState.SUCCEEDED);
            assertThat(bedrock.callsFor("r" + i)).isEqualTo(1);
        }
        assertThat(drainerReads.polls).as("no BatchGetItem for a call the drainer ran").isZero();
        assertThat(shaper.now()).as("idle as soon as the last call's end is fed, within a poll period")
                .isBetween(T0 + 3_000 + CALL_MILLIS, T0 + 3_000 + CALL_MILLIS + inline().pollMillis());
    }

    @Test
    void aCallThatDoesNotFitInTheInvocationGoesTheAsynchronousWay() throws Exception {
        shaper.enqueue("long-deadline", PACED, T0 + 600_000);
        shaper.clock.set(T0 + 1);
        shaper.enqueue("short-deadline", PACED, T0 + 20_000);
        calls.endNothing = true;

        // calls must end 65 s in: a 10-minute timeout does not fit, a 20 s one does
        drainer(inline()).drain(PACED, "drainer-a", new DrainWindow(T0 + 1_500, T0 + 65_000));

        assertThat(calls.started).as("the earlier deadline goes first").containsExactly("+1 short-deadline");
        assertThat(async).containsExactly("+1001 long-deadline");
    }

    @Test
    void atTheHandoffTheSuccessorIsWokenAtOnceAndTheCallsInFlightFinish() throws Exception {
        for (int i = 1; i <= 5; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }

        DrainService.Report report = drainer(inline()).drain(PACED, "drainer-a",
                new DrainWindow(T0 + 2_500, T0 + 1_000_000));

        assertThat(report.stoppedBecause()).isEqualTo("time limit");
        assertThat(calls.started).containsExactly("+0 r1", "+1000 r2", "+2000 r3");
        assertThat(wokenWhile).as("the successor starts while the calls run").containsExactly("+2500 running 3");
        assertThat(shaper.leases.current(PACED, T0 + 2_500)).as("released at the handoff").isEmpty();
        assertThat(shaper.now()).as("returned once its last call ended").isGreaterThanOrEqualTo(T0 + 2_000 + CALL_MILLIS);
        assertThat(calls.running).isZero();
        for (int i = 1; i <= 3; i++) {
            assertThat(shaper.record("r" + i).state()).isEqualTo(RequestState.SUCCEEDED);
            assertThat(bedrock.callsFor("r" + i)).isEqualTo(1);
        }
        assertThat(shaper.record("r4").state()).isEqualTo(RequestState.QUEUED);
        assertThat(async).isEmpty();
    }

    @Test
    void afterTheLeaseIsLostNoNewCallStartsAndWhatWasAdmittedGoesAsynchronously() throws Exception {
        for (int i = 1; i <= 4; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }
        // r1..r4 are written ADMITTED in one batch (3 s ahead); after r1's call starts the drainer
        // stalls past its lease and another takes it over.
        shaper.clock.at(T0 + 500, clock -> {
            clock.advance(31_000);
            shaper.leases.acquire(PACED, "drainer-b", 30_000, clock.nowMillis());
        });

        DrainService.Report report = drainer(inline().withAdmitLookahead(3_000, 25))
                .drain(PACED, "drainer-a", Long.MAX_VALUE);

        assertThat(report.stoppedBecause()).isEqualTo("lease lost");
        assertThat(calls.started).containsExactly("+0 r1");
        assertThat(async).containsExactly("+31500 r2", "+31500 r3", "+31500 r4");
        assertThat(shaper.record("r1").state()).as("a started call finishes after the lease is lost")
                .isEqualTo(RequestState.SUCCEEDED);
        assertThat(calls.running).isZero();
    }

    @Test
    void withEveryThreadBusyTheNextCallGoesAsynchronously() throws Exception {
        for (int i = 1; i <= 3; i++) {
            shaper.enqueue("r" + i, PACED, LATER);
        }
        calls.capacity = 2;
        calls.endNothing = true;

        drainer(inline()).drain(PACED, "drainer-a", new DrainWindow(T0 + 2_500, Long.MAX_VALUE));

        assertThat(calls.started).containsExactly("+0 r1", "+1000 r2");
        assertThat(async).containsExactly("+2000 r3");
    }

    @Test
    void inAsynchronousModeTheInlineCallsAreNotUsed() throws Exception {
        shaper.enqueue("r1", PACED, LATER);

        drainer(DrainSettings.defaults()).drain(PACED, "drainer-a", new DrainWindow(T0 + 500, Long.MAX_VALUE));

        assertThat(calls.started).isEmpty();
        assertThat(async).containsExactly("+0 r1");
    }

    /**
     * Calls on the fake clock: the processor's begin at the start, Bedrock's answer and the
     * processor's completion {@link #CALL_MILLIS} later, then the end reported.
     */
    private final class ScriptedCalls implements InlineCalls {
        final List<String> started = new ArrayList<>();
        int running;
        int capacity = Integer.MAX_VALUE;
        /** Calls start (and are counted) but never end: for tests about where a call goes. */
        boolean endNothing;

        @Override
        public boolean tryStart(String modelKey, String requestId, CallEnded onEnd) {
            if (running >= capacity) {
                return false;
            }
            started.add("+" + (shaper.now() - T0) + " " + requestId);
            if (endNothing) {
                running++;
                return true;
            }
            InvocationService.Start start = invocations.begin(requestId);
            if (start instanceof InvocationService.NoCall none) {
                onEnd.ended(requestId, none.record(), InvocationService.Ended.NOT_CALLED);
                return true;
            }
            InvocationService.Call call = (InvocationService.Call) start;
            running++;
            shaper.clock.at(shaper.now() + CALL_MILLIS, clock -> {
                InvocationService.Ended ended = invocations.completeToEnd(call,
                        bedrock.invoke(call.model(), call.body(), call.timeout()));
                running--;
                onEnd.ended(requestId, ended.record(), ended.reachedByMillis());
            });
            return true;
        }

        @Override
        public void awaitCalls(String modelKey) {
            while (running > 0 && !endNothing) {
                shaper.clock.sleepUntil(shaper.now() + 100);
            }
        }
    }

    /** The drainer's view of the request store, counting its status polls. */
    private static final class CountingStore extends DelegatingRequestStore {
        int polls;

        CountingStore(RequestStore store) {
            super(store);
        }

        @Override
        public Map<String, RequestRecord> findAll(Collection<String> requestIds, long nowMillis) {
            polls++;
            return delegate().findAll(requestIds, nowMillis);
        }
    }
}
