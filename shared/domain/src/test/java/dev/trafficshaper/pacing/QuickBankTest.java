package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class QuickBankTest {

    /** A clock minute's start. */
    private static final long MINUTE = 1_800_000_000_000L;

    @Test
    void anEpisodeOpeningEarlyInItsMinuteKeepsTheEvenRate() {
        QuickBank quick = new QuickBank();
        quick.opened(1.0, 0.95, MINUTE + 20_000); // 30 s left before the margin: twice the even rate spends it

        assertThat(quick.spend(0.01, true, MINUTE + 20_000)).isEqualTo(1.0);
        assertThat(quick.spentQuickly()).isFalse();
    }

    @Test
    void justPastTwiceTheEvenRateTheEpisodeGoesQuickly() {
        QuickBank quick = new QuickBank();
        quick.opened(1.0, 0.95, MINUTE + 20_001); // 29,999 ms left before the margin

        assertThat(quick.spend(0.01, true, MINUTE + 20_001)).isCloseTo(2.0, within(0.001)).isGreaterThan(2.0);
        assertThat(quick.spentQuickly()).isTrue();
    }

    @Test
    void anEpisodeOpeningTenSecondsBeforeTheTurnRampsAtFourTimesThenGoesAtSixteen() {
        QuickBank quick = new QuickBank();
        quick.opened(1.0, 0.95, MINUTE + 50_000);

        assertThat(quick.spend(0.01, true, MINUTE + 50_000)).as("the ramp").isEqualTo(QuickBank.RAMP_MULTIPLE);
        assertThat(quick.spend(0.01, true, MINUTE + 51_999)).isEqualTo(QuickBank.RAMP_MULTIPLE);
        assertThat(quick.spend(0.01, true, MINUTE + 52_000)).isEqualTo(QuickBank.MAX_MULTIPLE);
        assertThat(quick.spentQuickly()).isTrue();
    }

    @Test
    void inBetweenThePaceSpendsTheAllotmentByTheMarginBeforeTheTurn() {
        QuickBank quick = new QuickBank();
        quick.opened(0.5, 0.95, MINUTE + 40_000); // half a bank in the 10 s left: 3 times the even rate

        assertThat(quick.spend(0.01, true, MINUTE + 40_000)).isCloseTo(3.0, within(1e-9));
        assertThat(quick.spend(0.01, true, MINUTE + 45_000)).as("below the ramp's cap").isCloseTo(3.0, within(1e-9));
    }

    @Test
    void theAllotmentOnceSpentGoesBackToTheEvenRate() {
        QuickBank quick = new QuickBank();
        quick.opened(1.0, 0.5, MINUTE + 55_000); // an allotment of 0.5

        assertThat(quick.spend(0.3, true, MINUTE + 55_000)).isGreaterThan(1.0);
        assertThat(quick.spend(0.3, true, MINUTE + 55_100)).as("0.2 was left").isGreaterThan(1.0);
        assertThat(quick.spend(0.3, true, MINUTE + 55_200)).as("spent").isEqualTo(1.0);
        assertThat(quick.spentQuickly()).isTrue();
    }

    @Test
    void aCallTheLedgerHasNoRoomForGoesEvenlyAndIsNotQuick() {
        QuickBank quick = new QuickBank();
        quick.opened(1.0, 0.95, MINUTE + 50_000);

        assertThat(quick.spend(0.01, false, MINUTE + 50_000)).isEqualTo(1.0);
        assertThat(quick.spentQuickly()).isFalse();
        assertThat(quick.spend(0.01, true, MINUTE + 53_000)).as("the ramp starts at the first quick call")
                .isEqualTo(QuickBank.RAMP_MULTIPLE);
    }

    @Test
    void aSuccessorContinuesThePaceTheRampAndTheAllotment() {
        QuickBank predecessor = new QuickBank();
        predecessor.opened(1.0, 0.5, MINUTE + 50_000);
        predecessor.spend(0.125, true, MINUTE + 50_000);

        QuickBank successor = new QuickBank();
        successor.restore(predecessor.export());

        assertThat(successor.spentQuickly()).isTrue();
        assertThat(successor.spend(0.125, true, MINUTE + 51_000)).as("still ramping").isEqualTo(QuickBank.RAMP_MULTIPLE);
        assertThat(successor.spend(0.125, true, MINUTE + 52_000)).isEqualTo(QuickBank.MAX_MULTIPLE);
        assertThat(successor.spend(0.125, true, MINUTE + 52_100)).as("0.125 was left").isEqualTo(QuickBank.MAX_MULTIPLE);
        assertThat(successor.spend(0.125, true, MINUTE + 52_200)).as("spent").isEqualTo(1.0);
        assertThat(new QuickBank().export()).as("nothing open").isEqualTo(new PacerState.QuickBankState(1.0, 0.0,
                PacerState.NEVER, false));
    }
}
