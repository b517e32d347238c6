package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CeilingHistoryTest {

    private final CeilingHistory history = new CeilingHistory();

    @Test
    void aRefundIsWorthTheLeastRoomTheModelHadSinceItWasBooked() {
        history.remember(0, new double[] {-50_000});
        history.remember(5_000, new double[] {-10_000});
        history.remember(10_000, new double[] {-40_000});

        assertThat(history.roomSince(0, 3_000, -45_000, Long.MIN_VALUE, 0)).as("10,000 below at 5 s")
                .isEqualTo(10_000);
        assertThat(history.roomSince(0, 7_000, -45_000, Long.MIN_VALUE, 0)).isEqualTo(40_000);
        assertThat(history.roomSince(0, 11_000, -45_000, Long.MIN_VALUE, 0)).as("only now").isEqualTo(45_000);
        assertThat(history.roomSince(0, 3_000, 0, Long.MIN_VALUE, 0)).as("at the ceiling now").isZero();
    }

    @Test
    void aCallsOwnChargeCountsAsRoomWhileItWasOnItsWay() {
        history.remember(0, new double[] {0}); // at the ceiling, the call's 30,000 on its way
        history.remember(5_000, new double[] {-30_000});

        assertThat(history.roomSince(0, 0, -30_000, 4_000, 30_000)).isEqualTo(30_000);
        assertThat(history.roomSince(0, 0, -30_000, Long.MIN_VALUE, 30_000)).as("a settled call's refund")
                .isZero();
    }

    @Test
    void aCreditRaisesWhatIsRememberedSinceItsBooking() {
        history.remember(0, new double[] {-20_000});
        history.remember(5_000, new double[] {-20_000});

        history.raiseSince(0, 5_000, 15_000);

        assertThat(history.roomSince(0, 0, -20_000, Long.MIN_VALUE, 0)).isEqualTo(5_000);
        assertThat(history.roomSince(0, 0, -20_000, Long.MIN_VALUE, 0)).isEqualTo(5_000);
    }

    @Test
    void nothingRememberedThatFarBackGivesNoRoom() {
        history.remember(1_000, new double[] {-50_000});
        history.remember(CeilingHistory.HISTORY_MILLIS + 10_000, new double[] {-50_000});
        history.remember(CeilingHistory.HISTORY_MILLIS + 20_000, new double[] {-50_000});

        assertThat(history.roomSince(0, 500, -50_000, Long.MIN_VALUE, 0)).as("before the forgotten sample").isZero();
        // between the forgotten sample and the next the model only refilled: the next one covers it
        assertThat(history.roomSince(0, 5_000, -50_000, Long.MIN_VALUE, 0)).isEqualTo(50_000);
    }
}
