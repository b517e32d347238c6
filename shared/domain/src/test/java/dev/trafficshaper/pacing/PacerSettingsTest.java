package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PacerSettingsTest {

    @Test
    void laneSettingsThatWouldStarveALaneAreRefused() {
        assertThatThrownBy(() -> PacerSettings.builder().interactiveReserve(1.0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interactiveReserve must stay below 1")
                .hasMessageContaining("starve");
        assertThatThrownBy(() -> PacerSettings.builder().bulkCap(0.0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bulkCap must be a share in (0, 1]");
    }

    @Test
    void theEdgesThatLeaveBothLanesABudgetAreAccepted() {
        assertThat(PacerSettings.builder().interactiveReserve(0.99).bulkCap(0.01).build().bulkShareUnderContention())
                .isEqualTo(0.01);
        assertThat(PacerSettings.builder().interactiveReserve(0.0).bulkCap(1.0).build().bulkShareUnderContention())
                .isEqualTo(1.0);
    }

    @Test
    void theHeadroomBudgetIsAShareOfTheCallsUpToATenth() {
        assertThat(PacerSettings.defaults().headroomBudget()).as("1% of the calls by default").isEqualTo(0.01);
        assertThat(PacerSettings.builder().headroomBudget(0.1).build().headroomBudget()).isEqualTo(0.1);
        assertThat(PacerSettings.builder().headroomBudget(0.02).build().toBuilder().build().headroomBudget())
                .as("kept by toBuilder").isEqualTo(0.02);
        for (double refused : new double[] {0.0, -0.01, 0.11, Double.NaN}) {
            assertThatThrownBy(() -> PacerSettings.builder().headroomBudget(refused).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("headroomBudget must be a share of the calls in (0, 0.1]")
                    .hasMessageContaining("switch headroom off");
        }
    }
}
