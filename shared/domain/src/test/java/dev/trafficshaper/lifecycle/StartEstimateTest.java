package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.pacing.Lane;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Default lanes: under contention bulk gets 70% of the drain and interactive 30%. */
class StartEstimateTest {

    private static final ModelConfig MODEL = ModelConfig.of("m", "vendor.m", Quota.tokensPerMinute(1_000_000));

    @Test
    void withoutAStatusARequestStartsAtOnce() {
        assertThat(StartEstimate.startAt(MODEL, Optional.empty(), Lane.INTERACTIVE, T0)).isEqualTo(T0);
    }

    @Test
    void waitsForItsOwnLaneAtTheCurrentTarget() {
        // One minute of interactive work at a target of 0.5 drains in two minutes.
        assertThat(start(1.0, 0, 0.5, Lane.INTERACTIVE, T0)).isEqualTo(T0 + 120_000);
    }

    @Test
    void waitsForTheOtherLaneOnlyAsFarAsItsWeightLetsItThrough() {
        // Interactive: 1 min own + min(5, 1 × 0.7 / 0.3) = 3.333 min at target 1.
        assertThat(start(1.0, 5.0, 1.0, Lane.INTERACTIVE, T0)).isEqualTo(T0 + 200_000);
        // Bulk: 1 min own + min(5, 1 × 0.3 / 0.7) = 1.4286 min.
        assertThat(start(5.0, 1.0, 1.0, Lane.BULK, T0)).isEqualTo(T0 + Math.round((1 + 0.3 / 0.7) * 60_000));
        // The other lane's whole backlog when it is small.
        assertThat(start(0.1, 1.0, 1.0, Lane.BULK, T0)).isEqualTo(T0 + 66_000);
    }

    @Test
    void anEmptyQueueStartsAtThePacersNextSlot() {
        assertThat(start(0, 0, 1.0, Lane.BULK, T0)).isEqualTo(T0);
        ModelStatus spaced = new ModelStatus("m", T0, 0, 0, 0, T0 + 1_500, 1.0, 0, 0, "");
        assertThat(StartEstimate.startAt(MODEL, Optional.of(spaced), Lane.BULK, T0)).isEqualTo(T0 + 1_500);
    }

    @Test
    void bulkBehindHalfAMinuteOfBulkWorkStartsThirtySecondsLater() {
        assertThat(start(0, 0.5, 1.0, Lane.BULK, T0)).isEqualTo(T0 + 30_000);
    }

    @Test
    void interactiveBehindADeepBulkQueueDrainsTogetherWithItsShareOfBulk() {
        // 0.3 min own + min(5, 0.3 × 0.7 / 0.3) = 1 min: both lanes drain together.
        assertThat(start(0.3, 5.0, 1.0, Lane.INTERACTIVE, T0)).isEqualTo(T0 + 60_000);
    }

    @Test
    void countsFromThePacersNextSlotWhenThatIsLater() {
        ModelStatus status = new ModelStatus("m", T0, 1, 1.0, 0, T0 + 7_000, 1.0, 0, 0, "");

        assertThat(StartEstimate.startAt(MODEL, Optional.of(status), Lane.INTERACTIVE, T0)).isEqualTo(T0 + 67_000);
    }

    @Test
    void aStaleStatusPredictsAnImmediateStart() {
        ModelStatus old = new ModelStatus("m", T0 - 120_001, 1, 50.0, 50.0, T0, 1.0, 0, 0, "");

        assertThat(StartEstimate.startAt(MODEL, Optional.of(old), Lane.INTERACTIVE, T0)).isEqualTo(T0);
    }

    private static long start(double interactive, double bulk, double target, Lane lane, long now) {
        ModelStatus status = new ModelStatus("m", now, 1, interactive, bulk, now, target, 0, 0, "");
        return StartEstimate.startAt(MODEL, Optional.of(status), lane, now);
    }
}
