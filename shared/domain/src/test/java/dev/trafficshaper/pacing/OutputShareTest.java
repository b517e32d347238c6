package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.TokenUsage;
import org.junit.jupiter.api.Test;

class OutputShareTest {

    @Test
    void beforeAnySettlementTheSpacingChargesTheWholeAllowance() {
        OutputShare share = new OutputShare();

        assertThat(share.spaced(TokenUsage.of(100, 900))).isEqualTo(TokenUsage.of(100, 900));
    }

    @Test
    void eachSettlementMovesTheShareASixteenthOfTheWayToWhatItGenerated() {
        OutputShare share = new OutputShare();

        share.learn(1_000, 200);
        assertThat(share.value()).isEqualTo(1.0 - 0.8 / 16);
        share.learn(1_000, 200);
        assertThat(share.value()).isEqualTo((1.0 - 0.8 / 16) + (0.2 - (1.0 - 0.8 / 16)) / 16);
    }

    @Test
    void aSteadyWorkloadIsLearntWithinAFewDozenSettlements() {
        OutputShare share = new OutputShare();
        for (int i = 0; i < 60; i++) {
            share.learn(16_384, 650);
        }

        assertThat(share.value()).isBetween(650.0 / 16_384, 650.0 / 16_384 + 0.03);
        assertThat(share.spaced(TokenUsage.of(2_000, 16_384)).outputTokens()).isLessThan(1_200);
    }

    @Test
    void theShareStaysBetweenAFloorAndTheWholeAllowance() {
        OutputShare share = new OutputShare();
        for (int i = 0; i < 500; i++) {
            share.learn(1_000, 0);
        }
        assertThat(share.value()).isEqualTo(OutputShare.FLOOR);

        share.learn(1_000, 5_000);
        assertThat(share.value()).isLessThanOrEqualTo(1.0);
        assertThat(share.spaced(TokenUsage.of(10, 1)).outputTokens()).isEqualTo(1);
    }

    @Test
    void requestsWithoutAnAllowanceTeachNothingAndAreSpacedInFull() {
        OutputShare share = new OutputShare();
        share.learn(0, 0);
        assertThat(share.value()).isEqualTo(1.0);

        for (int i = 0; i < 100; i++) {
            share.learn(1_000, 100);
        }
        assertThat(share.spaced(TokenUsage.of(500, 0))).isEqualTo(TokenUsage.of(500, 0));
    }

    @Test
    void aStateWrittenBeforeTheShareExistedRestoresAsNothingLearnt() {
        OutputShare share = new OutputShare();
        share.restore(0.0);
        assertThat(share.value()).isEqualTo(1.0);

        share.restore(0.25);
        assertThat(share.value()).isEqualTo(0.25);
    }
}
