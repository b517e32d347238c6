package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UnansweredCallsTest {

    private static final long[] QUOTA = {120_000}; // 2,000 a second

    private final UnansweredCalls calls = new UnansweredCalls();

    @Test
    void theModelGivesBackWhatItStoodAboveAFullMeterAtMostTheRefillOverTheLag() {
        Admission first = RefundingBucketTest.admission("first", 0);
        calls.started(first, 0, new long[] {10_000});
        calls.look(0, new double[] {-10_000}); // at the ceiling, less the call's charge
        calls.look(1_000, new double[] {-7_000}); // 3,000 above a meter that had not charged it

        assertThat(calls.answered(first, 1_000, QUOTA)).as("a second's refill").containsExactly(2_000.0);
    }

    @Test
    void aCallFarBelowTheCapOwesNothing() {
        Admission call = RefundingBucketTest.admission("call", 0);
        calls.started(call, 0, new long[] {10_000});
        calls.look(2_000, new double[] {-60_000});

        assertThat(calls.answered(call, 2_000, QUOTA)).containsExactly(0.0);
    }

    @Test
    void whatOneAnswerGivesBackLowersTheOthers() {
        Admission first = RefundingBucketTest.admission("first", 0);
        Admission second = RefundingBucketTest.admission("second", 0);
        calls.started(first, 0, new long[] {10_000});
        calls.started(second, 0, new long[] {10_000});
        calls.look(3_000, new double[] {-15_000}); // 5,000 above a meter that had charged neither

        assertThat(calls.answered(first, 3_000, QUOTA)).containsExactly(5_000.0);
        assertThat(calls.answered(second, 3_000, QUOTA)).as("already given back").containsExactly(0.0);
    }

    @Test
    void aForgottenCallIsNotWaitedFor() {
        Admission call = RefundingBucketTest.admission("call", 0);
        calls.started(call, 0, new long[] {10_000});
        calls.look(1_000, new double[] {0});

        calls.forget(call);

        assertThat(calls.answered(call, 1_000, QUOTA)).isNull();
    }
}
