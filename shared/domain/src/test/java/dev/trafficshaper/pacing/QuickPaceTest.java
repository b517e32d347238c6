package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import org.junit.jupiter.api.Test;

class QuickPaceTest {

    private static final long MINUTE = 60_000;
    private static final long REFUSAL = 1_000;

    @Test
    void theNextTurnGoesAtTwiceTheShareTheDensestSecondShowed() {
        QuickPace pace = new QuickPace();
        // 0.3 of the quota within 900 ms, then 0.1 more a second later: the densest second holds 0.3
        for (int i = 0; i < 10; i++) {
            pace.sent(i * 100L, 0.03);
        }
        pace.sent(1_950, 0.1);

        pace.minuteEnded(MINUTE, REFUSAL, true);

        assertThat(pace.pace()).as("2 × 0.3 of a minute's quota a second").isCloseTo(36.0, offset(1e-9));
        assertThat(pace.shown()).isTrue();
    }

    @Test
    void callsWhoseAnswersMayNotBeInYetShowNothing() {
        QuickPace pace = new QuickPace();
        pace.sent(MINUTE - REFUSAL, 0.5);

        pace.minuteEnded(MINUTE, REFUSAL, true);

        assertThat(pace.pace()).isEqualTo(ClockMinuteWindow.QUICK_MULTIPLE);
        assertThat(pace.shown()).isFalse();
    }

    @Test
    void aRefusedOrUntrustedMinuteRaisesNothingAndEachMinuteStartsAfresh() {
        QuickPace pace = new QuickPace();
        pace.sent(0, 0.4);
        pace.minuteEnded(MINUTE, REFUSAL, false);
        assertThat(pace.pace()).isEqualTo(ClockMinuteWindow.QUICK_MULTIPLE);

        pace.minuteEnded(2 * MINUTE, REFUSAL, true);
        assertThat(pace.pace()).as("the refused minute's calls are gone").isEqualTo(ClockMinuteWindow.QUICK_MULTIPLE);
    }

    @Test
    void aMinuteWithARefusedCallShowsNothingAndAWithdrawnTrustStartsThePaceOver() {
        QuickPace pace = new QuickPace();
        pace.sent(0, 0.3);
        pace.refused();
        pace.minuteEnded(MINUTE, REFUSAL, true);
        assertThat(pace.pace()).as("refused in the minute").isEqualTo(ClockMinuteWindow.QUICK_MULTIPLE);

        pace.sent(MINUTE, 0.3);
        pace.minuteEnded(2 * MINUTE, REFUSAL, true);
        assertThat(pace.pace()).isCloseTo(36.0, offset(1e-9));

        pace.sent(2 * MINUTE, 0.5);
        pace.withdrawn();
        pace.minuteEnded(3 * MINUTE, REFUSAL, true);
        assertThat(pace.pace()).as("trusted again by the minute's end, yet withdrawn in it")
                .isEqualTo(ClockMinuteWindow.QUICK_MULTIPLE);
    }

    @Test
    void aSparseMinuteNeverLowersThePaceAndAClumpRaisesItOnlyToTheCap() {
        QuickPace pace = new QuickPace();
        pace.sent(MINUTE, 0.2);
        pace.minuteEnded(2 * MINUTE, REFUSAL, true);
        assertThat(pace.pace()).isCloseTo(24.0, offset(1e-9));

        pace.sent(2 * MINUTE + 10_000, 0.01);
        pace.minuteEnded(3 * MINUTE, REFUSAL, true);
        assertThat(pace.pace()).as("a minute that showed less keeps the pace").isCloseTo(24.0, offset(1e-9));

        for (int i = 0; i < 200; i++) {
            pace.sent(3 * MINUTE + i, 0.005);
        }
        pace.minuteEnded(4 * MINUTE, REFUSAL, true);
        assertThat(pace.pace()).isEqualTo(QuickPace.MOST_MULTIPLE);
    }
}
