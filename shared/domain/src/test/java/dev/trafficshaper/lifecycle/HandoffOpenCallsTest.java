package dev.trafficshaper.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Admission;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.pacing.Candidate;
import dev.trafficshaper.pacing.Decision;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A drainer that hands off with calls in flight publishes them with its pacer's state; the
 * successor's core polls their statuses as it polls its own dispatches and books each settlement
 * in its window, on a fake clock and through the published JSON.
 */
class HandoffOpenCallsTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final ModelConfig MODEL = ModelConfig.of("m", "model-id", Quota.tokensPerMinute(60_000_000))
            .withPacer(PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).headroom(false).build());
    private final StoredPacerHandoff handoff = new StoredPacerHandoff();

    @Test
    void theSuccessorPollsThePredecessorsOpenCallsAndFreesWhatTheyDidNotUse() {
        DrainerCore successor = successorOf(List.of("long", "lost"), T0 + 1_000);

        DrainStep first = successor.next(T0 + 1_000);
        assertThat(first).isEqualTo(new DrainStep.Poll(List.of("long", "lost")));
        assertThat(tokens(successor, T0 + 1_000)).isEqualTo(2 * 101_000);

        successor.polled(Map.of("long", record("long", RequestState.INVOKING, null)), T0 + 1_000);
        assertThat(tokens(successor, T0 + 1_000)).as("still running: still charged; the lost one too")
                .isEqualTo(2 * 101_000);
        assertThat(successor.next(T0 + 1_500)).as("the lost status is not asked for again")
                .isEqualTo(new DrainStep.Poll(List.of("long")));

        successor.polled(Map.of("long", record("long", RequestState.SUCCEEDED, TokenUsage.of(1_000, 2_000))),
                T0 + 1_500);

        assertThat(tokens(successor, T0 + 1_500)).as("settled: its unused reservation freed at once")
                .isEqualTo(3_000 + 101_000);
        assertThat(tokens(successor, T0 + 60_100)).as("the lost one stays charged as long as it would have")
                .isEqualTo(3_000 + 101_000);
        assertThat(tokens(successor, T0 + 60_101)).as("and leaves the window with its admission").isZero();
    }

    @Test
    void aPeriodicStatusCarriesNoOpenCalls() {
        Pacer predecessor = Pacer.create(MODEL.quota(), MODEL.pacer());
        Admission open = admit(predecessor, "long", T0);

        String periodic = handoff.export(predecessor, BackoffState.NONE, T0 + 1_000);
        String atHandOff = handoff.export(predecessor, BackoffState.NONE, List.of(open), T0 + 1_000);

        assertThat(periodic).doesNotContain("\"long\"");
        assertThat(atHandOff).contains("\"openCalls\"").contains("\"long\"");
        assertThat(StoredPacerHandoff.read(atHandOff).orElseThrow().openCalls()).hasSize(1);
    }

    /** A successor's core resumed from a hand-off that left {@code ids} open (each 1k in, 100k allowed). */
    private DrainerCore successorOf(List<String> ids, long at) {
        Pacer predecessor = Pacer.create(MODEL.quota(), MODEL.pacer());
        List<Admission> open = new ArrayList<>();
        long now = T0;
        for (String id : ids) {
            open.add(admit(predecessor, id, now));
            now += 1;
        }
        String published = handoff.export(predecessor, BackoffState.NONE, open, at);
        ModelStatus status = new ModelStatus("m", at, 0, 0, 0, at, 1.0, 0, 0, published);
        Pacer resumed = handoff.resume(MODEL, Optional.of(status), at);
        return DrainerCore.start(MODEL, resumed, handoff, DrainSettings.defaults(), Long.MAX_VALUE, at);
    }

    private static Admission admit(Pacer pacer, String id, long at) {
        Candidate candidate = new Candidate(id, Lane.BULK, "t", TokenUsage.of(1_000, 100_000), T0, Long.MAX_VALUE);
        long now = at;
        while (true) {
            Decision decision = pacer.decide(List.of(candidate), now);
            if (decision instanceof Decision.Admit admit) {
                return admit.admission();
            }
            now = ((Decision.WaitUntil) decision).atMillis();
        }
    }

    private static RequestRecord record(String id, RequestState state, TokenUsage actual) {
        return RequestRecord.builder().requestId(id).tenant("t").modelKey("m").lane(Lane.BULK).state(state)
                .enqueuedAtMillis(T0).deadlineMillis(T0 + 600_000).admittedAtMillis(T0)
                .estimate(TokenUsage.of(1_000, 100_000)).actualUsage(actual)
                .payloadRef(new PayloadRef(PayloadRef.Location.OBJECT, id, PayloadKind.REQUEST, "a".repeat(64), 10,
                        T0 + 3_600_000))
                .build();
    }

    private static long tokens(DrainerCore core, long at) {
        return core.pacer().snapshot(at).windowSums().get(QuotaDimension.TOKENS);
    }
}
