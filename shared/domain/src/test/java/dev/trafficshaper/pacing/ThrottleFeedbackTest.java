package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class ThrottleFeedbackTest {

    private static final PacerSettings ON = PacerSettings.builder().targetUtilization(0.95).build();
    private static final PacerSettings OFF = PacerSettings.builder().targetUtilization(0.95).headroom(false).build();
    private static final long T0 = 1_800_000_000_000L;

    /** Another application takes a quarter of the quota: the meter refuses once the pacer's window holds 0.75. */
    @Test
    void withHeadroomTheTargetClimbsFastBackToJustUnderTheLevelTheMeterRefusedAt() {
        ThrottleFeedback feedback = new ThrottleFeedback(ON);
        feedback.onThrottle(T0, 0.766);
        feedback.onThrottle(T0 + 1_000, 0.75); // a second episode: 0.76 is still above what is left

        // the target a second on from the first (the fast climb at the first ceiling, or the slow line), backed off
        double lowered = Math.max(0.766 * (1 - ThrottleFeedback.CEILING_MARGIN), 0.76 + 0.05 / 60) * 0.8;
        assertThat(feedback.ceiling()).isEqualTo(0.75);
        assertThat(feedback.target(T0 + 1_000)).isCloseTo(lowered, within(1e-9));
        // 0.61 + 8/min reaches the ceiling less its margin (0.746) in about 1 s; the slow line is near 0.61 then
        assertThat(feedback.target(T0 + 1_500)).isCloseTo(lowered + 8.0 / 120, within(1e-9));
        assertThat(feedback.target(T0 + 3_000)).isCloseTo(0.75 * (1 - ThrottleFeedback.CEILING_MARGIN), within(1e-9));
        assertThat(feedback.target(T0 + 31_000)).isCloseTo(0.75 * (1 - ThrottleFeedback.CEILING_MARGIN), within(1e-9));
        assertThat(feedback.slowLine(T0 + 31_000)).isCloseTo(lowered + 0.05 / 2, within(1e-9));
        // the slow line alone probes above the ceiling, when it gets there: after 3 minutes
        assertThat(feedback.target(T0 + 1_000 + 180_000)).isCloseTo(lowered + 0.15, within(1e-9));
        assertThat(feedback.target(T0 + 1_000 + 600_000)).isEqualTo(0.95);
    }

    @Test
    void inStrictModeTheLevelIsIgnoredAndTheTargetRecoversOnTheSlowLineAlone() {
        ThrottleFeedback feedback = new ThrottleFeedback(OFF);
        feedback.onThrottle(T0, 0.75);

        assertThat(feedback.ceiling()).isZero();
        assertThat(feedback.target(T0 + 30_000)).isCloseTo(0.76 + 0.025, within(1e-9));
    }

    @Test
    void theCeilingIsNeverAboveTheTargetTheThrottleCameAt() {
        ThrottleFeedback feedback = new ThrottleFeedback(ON);
        feedback.onThrottle(T0, 1.2); // a banked burst can hold more than the target in the window

        assertThat(feedback.ceiling()).isEqualTo(0.95);
    }

    @Test
    void aThrottleWithoutALevelLeavesTheLastCeilingInPlace() {
        ThrottleFeedback feedback = new ThrottleFeedback(ON);
        feedback.onThrottle(T0, 0.7);
        feedback.onThrottle(T0 + 120_000, 0.0);

        assertThat(feedback.ceiling()).isEqualTo(0.7);
    }

    /** A throttle at a time, and the pacer's window fill when it came. */
    record Throttle(long gapMillis, double fill) {
    }

    /** The climb only adds: with the same throttles, the target is never below strict recovery's. */
    @Property(tries = 300)
    void theTargetIsNeverBelowWhatStrictRecoveryGives(@ForAll("throttles") List<Throttle> throttles) {
        ThrottleFeedback on = new ThrottleFeedback(ON);
        ThrottleFeedback off = new ThrottleFeedback(OFF);
        long now = T0;
        for (Throttle throttle : throttles) {
            for (long t = now; t < now + throttle.gapMillis(); t += 7_000) {
                assertThat(on.target(t)).as("at %d ms", t - T0).isGreaterThanOrEqualTo(off.target(t));
            }
            now += throttle.gapMillis();
            on.onThrottle(now, throttle.fill());
            off.onThrottle(now, throttle.fill());
        }
        assertThat(on.throttles()).isEqualTo(off.throttles());
    }

    /** What a successor restores continues both lines: its target is the predecessor's at every later time. */
    @Property(tries = 300)
    void aSuccessorContinuesThePredecessorsTargetLine(@ForAll("throttles") List<Throttle> throttles,
                                                      @ForAll("handoffAfter") long handoffAfterMillis) {
        ThrottleFeedback predecessor = new ThrottleFeedback(ON);
        long now = T0;
        for (Throttle throttle : throttles) {
            now += throttle.gapMillis();
            predecessor.onThrottle(now, throttle.fill());
        }
        long capturedAt = now + handoffAfterMillis;
        ThrottleFeedback successor = new ThrottleFeedback(ON);
        successor.restore(predecessor.target(capturedAt), predecessor.slowLine(capturedAt), predecessor.ceiling(),
                capturedAt, predecessor.episodeAt());

        for (long t = capturedAt; t < capturedAt + 900_000; t += 5_000) {
            assertThat(successor.target(t)).as("at %d ms after the handoff", t - capturedAt)
                    .isCloseTo(predecessor.target(t), within(1e-9));
        }
        assertThat(successor.ceiling()).isEqualTo(predecessor.ceiling());
        assertThat(successor.episodeAt()).isEqualTo(predecessor.episodeAt());
    }

    @Provide
    Arbitrary<List<Throttle>> throttles() {
        Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.longs().between(0, 1_500),
                Arbitraries.longs().between(1_000, 400_000));
        Arbitrary<Double> fills = Arbitraries.oneOf(Arbitraries.just(0.0), Arbitraries.doubles().between(0.05, 1.3));
        return Combinators.combine(gaps, fills).as(Throttle::new).list().ofMinSize(1).ofMaxSize(12);
    }

    @Provide
    Arbitrary<Long> handoffAfter() {
        return Arbitraries.longs().between(0, 400_000);
    }
}
