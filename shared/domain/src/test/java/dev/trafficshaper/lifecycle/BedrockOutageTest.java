package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.TransientKind;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A 5 s Bedrock outage in the middle of a 300-request backlog, on a fake clock: the production
 * drainer and Bedrock Processor (run inline at dispatch) against a Bedrock that answers 503 to
 * every call for 5 s. Model {@code fast} allows 1,200 requests a minute (one admission every 50 ms).
 */
@Timeout(30)
class BedrockOutageTest {

    private static final String FAST = "fast";
    private static final long OUTAGE_FROM = T0 + 3_000;
    private static final long OUTAGE_UNTIL = OUTAGE_FROM + 5_000;
    private static final long DEADLINE = T0 + 120_000;

    private final ShaperFixture shaper = new ShaperFixture(ModelCatalog.of(List.of(new ModelConfig(FAST,
            "vendor.fast-v1", Backend.CONVERSE, new Quota(0, 1_200, 0, 0, 1), 1_000, 100_000,
            PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).build(), 2, 900, 3_600, null))));
    private final Map<String, Integer> calls = new HashMap<>();
    private int callsInOutage;
    private final InvocationService processor = InvocationService.builder().catalog(shaper.catalog)
            .requests(shaper.requests).queue(shaper.queue).payloads(shaper.payloads).usage(shaper.usage)
            .callback(shaper.callback).wake(shaper.wake).metrics(shaper.metrics).clock(shaper.clock)
            .invoker((model, body, timeout) -> {
                String id = ShaperFixture.requestIdOf(body);
                calls.merge(id, 1, Integer::sum);
                long now = shaper.now();
                if (now >= OUTAGE_FROM && now < OUTAGE_UNTIL) {
                    callsInOutage++;
                    return new BedrockOutcome.Transient(TransientKind.SERVICE_UNAVAILABLE, 503,
                            "Bedrock is unavailable");
                }
                return new BedrockOutcome.Succeeded(FakeModelInvoker.USAGE, "end_turn", "{\"output\":{}}");
            }).build();
    private final DrainService drainer = drainer(PacerHandoff.fresh());
    /** Calls sent into the outage after the handoff, by the successor. */
    private int successorCallsInOutage;
    private long handoffAt = Long.MAX_VALUE;

    private DrainService drainer(PacerHandoff handoff) {
        return DrainService.builder().catalog(shaper.catalog).queue(shaper.queue)
                .requests(shaper.requests).leases(shaper.leases).board(shaper.board)
                .dispatch((model, id) -> {
                    long now = shaper.now();
                    if (now >= handoffAt && now >= OUTAGE_FROM && now < OUTAGE_UNTIL) {
                        successorCallsInOutage++;
                    }
                    processor.process(id);
                }).wake(shaper.wake).callback(shaper.callback).handoff(handoff)
                .metrics(shaper.metrics).clock(shaper.clock).build();
    }

    {
        shaper.clock.failAfter(T0 + 3_600_000);
    }

    @Test
    void aFiveSecondOutageDuringA300RequestBacklogFailsNoRequest() throws Exception {
        for (int i = 0; i < 300; i++) {
            shaper.enqueue(String.format("r%03d", i), FAST, DEADLINE);
        }

        drainer.drain(FAST, "drainer-a", Long.MAX_VALUE);

        long succeeded = 0;
        for (int i = 0; i < 300; i++) {
            RequestRecord record = shaper.record(String.format("r%03d", i));
            if (record.state() == RequestState.SUCCEEDED) {
                succeeded++;
            }
        }
        assertThat(succeeded).as("requests served").isEqualTo(300);
        assertThat(shaper.resumed).hasSize(300).allMatch(r -> r.state() == RequestState.SUCCEEDED);
        // Before the first poll reveals the outage (500 ms at 20 admissions/s, twice that while the
        // bank of the first minute is spent) ten to twenty calls fail; then one probe at a time,
        // spaced by the backoff, goes out until Bedrock answers again.
        assertThat(callsInOutage).as("calls sent into the outage").isBetween(1, 40);
        assertThat(calls.values().stream().mapToInt(Integer::intValue).sum())
                .as("calls: one per request plus those the outage refused").isEqualTo(300 + callsInOutage);
        assertThat(shaper.now() - OUTAGE_UNTIL).as("drained soon after the outage").isLessThan(20_000);
    }

    @Test
    void aSuccessorThatTakesOverMidOutageKeepsProbingOneAtATime() throws Exception {
        int sent = drainWithAHandoffMidOutage(new StoredPacerHandoff());

        // The successor goes on with the predecessor's probe backoff (by then a second or more
        // between probes), rather than sending 20 calls a second into the outage.
        assertThat(sent).as("calls the successor sent into the outage").isBetween(0, 4);
        assertThat(calls.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(300 + callsInOutage);
        assertThat(shaper.now() - OUTAGE_UNTIL).as("drained soon after the outage").isLessThan(20_000);
    }

    @Test
    void aSuccessorThatForgotTheOutageSendsARunOfCallsIntoIt() throws Exception {
        StoredPacerHandoff stored = new StoredPacerHandoff();
        // The pacer's state alone, as before the backoff travelled with it.
        PacerHandoff pacerOnly = new PacerHandoff() {
            @Override
            public Pacer resume(ModelConfig model, Optional<ModelStatus> last, long nowMillis) {
                return stored.resume(model, last, nowMillis);
            }

            @Override
            public String export(Pacer pacer, long nowMillis) {
                return stored.export(pacer, nowMillis);
            }
        };

        int sent = drainWithAHandoffMidOutage(pacerOnly);

        assertThat(sent).as("the run it needs to find the outage again, and more").isGreaterThan(4);
    }

    /** Drains the backlog with a handoff 2.5 s into the outage; returns the calls the successor sent into it. */
    private int drainWithAHandoffMidOutage(PacerHandoff handoff) throws Exception {
        for (int i = 0; i < 300; i++) {
            shaper.enqueue(String.format("r%03d", i), FAST, DEADLINE);
        }
        DrainService drains = drainer(handoff);
        handoffAt = OUTAGE_FROM + 2_500;

        DrainService.Report first = drains.drain(FAST, "drainer-a", handoffAt);
        DrainService.Report second = drains.drain(FAST, "drainer-b", Long.MAX_VALUE);

        assertThat(first.stoppedBecause()).isEqualTo("time limit");
        assertThat(second.stoppedBecause()).isEqualTo("idle");
        for (int i = 0; i < 300; i++) {
            assertThat(shaper.record(String.format("r%03d", i)).state()).isEqualTo(RequestState.SUCCEEDED);
        }
        return successorCallsInOutage;
    }
}
