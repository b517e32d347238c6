package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the pacer places a refused call for {@link Headroom}: at its ceiling (one lift step back)
 * or below it (half the lift). A backlog of calls that settle at once at their reservation, so
 * nothing is left open to forgive and only the lift moves. (A refusal over the strict window is
 * forgiveness's: {@link HeadroomTest}.)
 */
class HeadroomRefusalTest {

    private static final Quota QUOTA = Quota.tokensPerMinute(600_000);

    private int sequence;

    /** Drains a backlog of 1k-token calls until {@code untilMillis}, each settled as it goes; returns the time. */
    private long drain(Pacer pacer, long fromMillis, long untilMillis) {
        long now = fromMillis;
        while (now < untilMillis) {
            Decision decision = pacer.decide(List.of(next()), now);
            if (decision instanceof Decision.Admit admit) {
                pacer.settle(admit.admission(), TokenUsage.of(1_000, 0), now);
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        return now;
    }

    private Candidate next() {
        return new Candidate("r" + sequence++, Lane.BULK, "t", TokenUsage.of(1_000, 0), 0, Long.MAX_VALUE);
    }

    /**
     * The target of a pacer (target 0.95) that drained the backlog until {@code drainedMillis}, and
     * its target once the next call it admits is throttled.
     */
    private double[] targetsAroundARefusal(long drainedMillis) {
        Pacer pacer = Pacer.create(QUOTA, PacerSettings.builder().targetUtilization(0.95).slowStartMillis(0).build());
        long now = drain(pacer, 0, drainedMillis);
        double before = pacer.snapshot(now).target();
        Decision decision = pacer.decide(List.of(next()), now);
        while (decision instanceof Decision.WaitUntil wait) {
            now = wait.atMillis();
            decision = pacer.decide(List.of(next()), now);
        }
        pacer.throttled(((Decision.Admit) decision).admission(), now);
        return new double[] {before, pacer.snapshot(now).target()};
    }

    @Test
    void aRefusalWithThePacerAtItsCeilingStepsTheTargetBackOneLiftStep() {
        double[] targets = targetsAroundARefusal(200_000);

        assertThat(targets[0]).as("lifted to the quota").isEqualTo(1.0, within(1e-9));
        assertThat(targets[1]).isEqualTo(0.99, within(1e-9));
    }

    @Test
    void aRefusalBelowTheCeilingHalvesTheLift() {
        double[] targets = targetsAroundARefusal(30_000);

        assertThat(targets[0]).as("two steps up").isEqualTo(0.97, within(1e-9));
        assertThat(targets[1]).isEqualTo(0.96, within(1e-9));
    }
}
