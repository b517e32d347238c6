package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The calls still open at a hand-off ({@link PacerState.OpenCall}), on a fake clock: the successor
 * books their settlements against the charges it resumed, and one whose settlement it never learns
 * stays charged until it leaves the window.
 */
class OpenCallHandoffTest {

    private static final long T0 = 1_800_000_000_000L;
    /** 600k TPM at target 1.0, strict: the window is the bound. */
    private static final Quota QUOTA = Quota.tokensPerMinute(600_000);
    private static final PacerSettings STRICT = PacerSettings.builder()
            .targetUtilization(1.0).slowStartMillis(0).headroom(false).build();

    @Test
    void aSuccessorFreesAPredecessorsOpenCallsUnusedReservationOnceItSettles() {
        Pacer predecessor = Pacer.create(QUOTA, STRICT);
        Admission settled = admit(predecessor, "short", 1_000, 1_000, T0);
        Admission open = admit(predecessor, "long", 1_000, 100_000, T0 + 200);
        predecessor.settle(settled, TokenUsage.of(1_000, 500), T0 + 300);
        long handoff = T0 + 1_000;

        PacerState state = predecessor.export(handoff, List.of(open, settled));
        Pacer successor = Pacer.resume(QUOTA, STRICT, state, handoff + 10);
        List<Admission> carried = successor.takeCarriedCalls();

        assertThat(state.openCalls()).extracting(PacerState.OpenCall::requestId).containsExactly("long");
        assertThat(carried).extracting(Admission::requestId).containsExactly("long");
        assertThat(successor.takeCarriedCalls()).as("handed out once").isEmpty();
        assertThat(tokens(successor, handoff + 10)).as("charged at its reservation until it settles")
                .isEqualTo(101_000 + 1_500);

        successor.settle(carried.get(0), TokenUsage.of(1_000, 2_000), handoff + 2_000);

        assertThat(tokens(successor, handoff + 2_000)).as("its unused reservation freed at once")
                .isEqualTo(3_000 + 1_500);
        assertThat(tokens(successor, T0 + 60_199)).as("the rest stays as long as it would have")
                .isEqualTo(3_000 + 1_500);
        assertThat(tokens(successor, T0 + 60_200)).as("and leaves with its quarter second's bucket").isZero();
    }

    @Test
    void anOpenCallWhoseSettlementNeverArrivesStaysChargedUntilItLeavesTheWindow() {
        Pacer predecessor = Pacer.create(QUOTA, STRICT);
        Admission open = admit(predecessor, "long", 1_000, 100_000, T0);
        long handoff = T0 + 1_000;

        Pacer successor = Pacer.resume(QUOTA, STRICT, predecessor.export(handoff, List.of(open)), handoff);
        successor.takeCarriedCalls(); // the correction is lost: never booked

        assertThat(tokens(successor, handoff)).isEqualTo(101_000);
        assertThat(tokens(successor, T0 + 59_999)).as("held as the predecessor would have held it")
                .isEqualTo(101_000);
        assertThat(tokens(successor, T0 + 60_000)).as("gone as its admission leaves the window").isZero();
    }

    @Test
    void aCallThatOutlivesItsWindowChargeTravelsTooAndRefundsTheBucketModelNotTheWindow() {
        // a 61 s generation under headroom beside calls at the target: at a hand-off 61 s after its
        // admission its charge has left the window, but the bucket model still waits for its refund
        // (16,000 reserved, 3,000 used)
        PacerSettings headroom = PacerSettings.builder().slowStartMillis(0).build();
        Pacer predecessor = Pacer.create(QUOTA, headroom);
        Admission old = admit(predecessor, "old", 1_000, 16_000, T0);
        long now = T0;
        for (int i = 0; now < T0 + 61_000; i++) {
            now = admitNext(predecessor, "a" + i, now);
        }
        long handoff = now;

        PacerState state = predecessor.export(handoff, List.of(old));
        Pacer successor = Pacer.resume(QUOTA, headroom, state, handoff);
        List<Admission> carried = successor.takeCarriedCalls();
        Pacer twin = Pacer.resume(QUOTA, headroom, state, handoff);
        twin.takeCarriedCalls(); // its settlement never learnt
        long before = tokens(successor, handoff);

        assertThat(state.openCalls()).extracting(PacerState.OpenCall::requestId).containsExactly("old");
        assertThat(carried).extracting(Admission::requestId).containsExactly("old");

        long ended = handoff + 300; // it ends after the hand-off, and is seen at once
        successor.settle(carried.get(0), TokenUsage.of(1_000, 3_000), 0, ended, ended);

        assertThat(tokens(successor, handoff)).as("out of the window: nothing there to adjust").isEqualTo(before);
        assertThat(level(successor, ended) - level(twin, ended))
                .as("its unused 13,000 go back to the bucket model, as they would have for the predecessor")
                .isEqualTo(13_000);
    }

    private static long level(Pacer pacer, long at) {
        return pacer.export(at, List.of()).bank().bucketModel().level().get(QuotaDimension.TOKENS);
    }

    @Test
    void aStateWithoutOpenCallsKeepsEveryChargeAsBefore() {
        Pacer predecessor = Pacer.create(QUOTA, STRICT);
        admit(predecessor, "long", 1_000, 100_000, T0);
        long handoff = T0 + 1_000;

        Pacer periodic = Pacer.resume(QUOTA, STRICT, predecessor.export(handoff), handoff);

        assertThat(predecessor.export(handoff).openCalls()).isEmpty();
        assertThat(periodic.takeCarriedCalls()).isEmpty();
        assertThat(tokens(periodic, T0 + 59_999)).as("charged at its reservation").isEqualTo(101_000);
        assertThat(tokens(periodic, T0 + 60_000)).isZero();
    }

    @Test
    void theSuccessorOfAHandOffAdmitsWithinABucketOfAQuarterSecondOfThePredecessor() {
        Pacer predecessor = Pacer.create(QUOTA, STRICT);
        Pacer twin = Pacer.create(QUOTA, STRICT);
        long now = T0;
        for (int i = 0; i < 90; i++) {
            now = admitNext(predecessor, "a" + i, now);
            admit(twin, "a" + i, 10_000, 0, now);
        }
        Pacer successor = Pacer.resume(QUOTA, STRICT, predecessor.export(now, List.of()), now);

        long resumed = admitNext(successor, "b", now);
        long continued = admitNext(twin, "b", now);

        assertThat(resumed).isGreaterThanOrEqualTo(continued)
                .isLessThanOrEqualTo(continued + PacerState.HANDOFF_BUCKET_MILLIS);
    }

    private static Admission admit(Pacer pacer, String id, long input, long maxTokens, long at) {
        Decision decision = pacer.decide(List.of(candidate(id, input, maxTokens)), at);
        assertThat(decision).as(id).isInstanceOf(Decision.Admit.class);
        return ((Decision.Admit) decision).admission();
    }

    /** When a 10k-token request offered from {@code from} on is admitted. */
    private static long admitNext(Pacer pacer, String id, long from) {
        long at = from;
        while (pacer.decide(List.of(candidate(id, 10_000, 0)), at) instanceof Decision.WaitUntil wait) {
            at = wait.atMillis();
        }
        return at;
    }

    private static Candidate candidate(String id, long input, long maxTokens) {
        return new Candidate(id, Lane.BULK, "t", TokenUsage.of(input, maxTokens), T0, Long.MAX_VALUE);
    }

    private static long tokens(Pacer pacer, long at) {
        return pacer.snapshot(at).windowSums().get(QuotaDimension.TOKENS);
    }
}
