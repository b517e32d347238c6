package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class InputScaleTest {

    @Test
    void trustsTheEstimateUntilItHasSeenSixteenSettlements() {
        InputScale scale = new InputScale();
        for (int i = 0; i < InputScale.WARM_UP - 1; i++) {
            scale.learn(1_000, 700);
        }
        assertThat(scale.scale()).isEqualTo(1.0);

        scale.learn(1_000, 700);
        assertThat(scale.scale()).isEqualTo(0.7);
        assertThat(scale.reserve(TokenUsage.of(1_000, 50))).isEqualTo(TokenUsage.of(700, 50));
    }

    @Test
    void aGenerousMarginShrinksToWhatIsObservedAndALowEstimateGrows() {
        Random random = new Random(7);
        InputScale margin = new InputScale();
        InputScale low = new InputScale();
        for (int i = 0; i < 400; i++) {
            long actual = 900 + random.nextInt(201); // 900..1,100
            margin.learn(Math.round(actual * 1.25), actual);
            low.learn(Math.round(actual / 1.4), actual);
        }

        assertThat(margin.scale()).as("a 25% margin, half of it given back").isBetween(0.80, 0.92);
        assertThat(low.scale()).as("estimates 40% low").isBetween(1.40, 1.60);
    }

    @Test
    void theScaleStaysWithinBounds() {
        InputScale scale = new InputScale();
        for (int i = 0; i < 100; i++) {
            scale.learn(100, 1_000);
        }
        assertThat(scale.scale()).isEqualTo(InputScale.MAX_SCALE);
        scale.learn(0, 5);
        assertThat(scale.scale()).isEqualTo(InputScale.MAX_SCALE);
    }

    @Test
    void onlyAPacerWithHeadroomReservesTheLearntInput() {
        Quota quota = Quota.tokensPerMinute(600_000);
        PacerSettings on = PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).build();
        Pacer learning = Pacer.create(quota, on);
        Pacer strict = Pacer.create(quota, on.toBuilder().headroom(false).build());
        for (int i = 0; i < 40; i++) {
            for (Pacer pacer : List.of(learning, strict)) {
                Candidate c = new Candidate("w" + i, Lane.BULK, "t", TokenUsage.of(1_000, 0), 0, Long.MAX_VALUE);
                Admission admission = ((Decision.Admit) pacer.decide(List.of(c), i * 1_000L)).admission();
                pacer.settle(admission, TokenUsage.of(800, 0), i * 1_000L + 10);
            }
        }

        Candidate next = new Candidate("n", Lane.BULK, "t", TokenUsage.of(1_000, 0), 0, Long.MAX_VALUE);
        assertThat(((Decision.Admit) learning.decide(List.of(next), 60_000)).admission().reservation().tokens())
                .isEqualTo(800);
        assertThat(((Decision.Admit) strict.decide(List.of(next), 60_000)).admission().reservation().tokens())
                .isEqualTo(1_000);
    }

    @Test
    void aSuccessorResumesTheLearntScaleAndKeepsLearningFromItAsThePredecessorWould() {
        Random random = new Random(11);
        InputScale predecessor = new InputScale();
        InputScale twin = new InputScale();
        for (int i = 0; i < 40; i++) {
            long actual = 900 + random.nextInt(201);
            predecessor.learn(1_200, actual);
            twin.learn(1_200, actual);
        }
        InputScale successor = new InputScale();
        successor.restore(predecessor.export());

        assertThat(successor.scale()).as("no warm-up again").isEqualTo(twin.scale()).isLessThan(1.0);
        for (int i = 0; i < 10; i++) {
            long actual = 900 + random.nextInt(201);
            successor.learn(1_200, actual);
            twin.learn(1_200, actual);
        }
        assertThat(successor.export()).isEqualTo(twin.export());
    }

    @Test
    void nothingLearntRestoresAsFreshAndAHalfWarmScaleStaysHalfWarm() {
        InputScale fromNothing = new InputScale();
        fromNothing.restore(PacerState.InputScaleState.NONE);
        assertThat(fromNothing.export()).isEqualTo(new InputScale().export());

        InputScale halfWarm = new InputScale();
        for (int i = 0; i < InputScale.WARM_UP / 2; i++) {
            halfWarm.learn(1_000, 700);
        }
        InputScale successor = new InputScale();
        successor.restore(halfWarm.export());
        assertThat(successor.scale()).isEqualTo(1.0);
        for (int i = 0; i < InputScale.WARM_UP / 2; i++) {
            successor.learn(1_000, 700);
        }
        assertThat(successor.scale()).as("warm after 16 settlements in all, across the handoff").isEqualTo(0.7);
    }

    @Test
    void aResumedPacerWithHeadroomReservesTheLearntInputAtOnce() {
        Quota quota = Quota.tokensPerMinute(600_000);
        PacerSettings on = PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).build();
        Pacer predecessor = Pacer.create(quota, on);
        for (int i = 0; i < 40; i++) {
            Candidate c = new Candidate("w" + i, Lane.BULK, "t", TokenUsage.of(1_000, 0), 0, Long.MAX_VALUE);
            Admission admission = ((Decision.Admit) predecessor.decide(List.of(c), i * 1_000L)).admission();
            predecessor.settle(admission, TokenUsage.of(800, 0), i * 1_000L + 10);
        }
        PacerState state = predecessor.export(50_000);
        Pacer successor = Pacer.resume(quota, on, state, 50_000);
        Pacer strictSuccessor = Pacer.resume(quota, on.toBuilder().headroom(false).build(), state, 50_000);

        Candidate next = new Candidate("n", Lane.BULK, "t", TokenUsage.of(1_000, 0), 0, Long.MAX_VALUE);
        assertThat(state.inputScale().samples()).isEqualTo(InputScale.WARM_UP);
        assertThat(((Decision.Admit) successor.decide(List.of(next), 60_000)).admission().reservation().tokens())
                .isEqualTo(800);
        assertThat(((Decision.Admit) strictSuccessor.decide(List.of(next), 60_000)).admission().reservation()
                .tokens()).isEqualTo(1_000);
    }
}
