package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TurnGuardTest {

    @Test
    void untilALagIsKnownTheGuardIsTwoSeconds() {
        TurnGuard guard = new TurnGuard();

        assertThat(guard.millis()).isEqualTo(2_000);
        assertThat(guard.nearTurn(57_999)).isFalse();
        assertThat(guard.nearTurn(58_000)).isTrue();
        assertThat(guard.nearTurn(119_999)).isTrue();
        assertThat(guard.nearTurn(120_000)).as("the new minute's first millisecond").isFalse();
    }

    @Test
    void theGuardIsTheLongestLagSeenAndAMargin() {
        TurnGuard guard = new TurnGuard();

        guard.reached(10_000, 10_040);
        guard.reached(11_000, 11_300);
        guard.reached(12_000, 12_010);

        assertThat(guard.millis()).isEqualTo(300 + TurnGuard.MARGIN_MILLIS);
        assertThat(guard.nearTurn(59_449)).isFalse();
        assertThat(guard.nearTurn(59_450)).isTrue();
    }

    @Test
    void aLagLongerThanTheDefaultLeavesTheDefaultAndOneReadBeforeItsAdmissionCountsAsNone() {
        TurnGuard slow = new TurnGuard();
        slow.reached(0, 4_000);
        assertThat(slow.millis()).isEqualTo(TurnGuard.DEFAULT_MILLIS);

        TurnGuard early = new TurnGuard();
        early.reached(5_000, 4_900); // an admission booked ahead of the clock the call ran by
        assertThat(early.millis()).isEqualTo(TurnGuard.MARGIN_MILLIS);
    }

    @Test
    void theGuardForgetsALagOnceTheLatestCallsAreAllShorter() {
        TurnGuard guard = new TurnGuard();
        guard.reached(0, 1_000);

        for (int i = 1; i < TurnGuard.LAGS; i++) {
            guard.reached(i * 1_000L, i * 1_000L + 20);
        }
        assertThat(guard.millis()).as("the long lag is still among the latest").isEqualTo(1_000 + TurnGuard.MARGIN_MILLIS);

        guard.reached(100_000, 100_020);
        assertThat(guard.millis()).isEqualTo(20 + TurnGuard.MARGIN_MILLIS);
    }
}
