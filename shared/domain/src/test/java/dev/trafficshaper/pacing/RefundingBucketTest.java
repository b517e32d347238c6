package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class RefundingBucketTest {

    /** A bedrock-mantle style split quota: 3M input and 300k output tokens a minute. */
    private static final Quota SPLIT = new Quota(0, 0, 3_000_000, 300_000, 1);
    private static final long MAX_TOKENS = 16_000;
    private static final long GENERATED = 3_000;
    private static final long LATENCY_MILLIS = 61_000;

    /** 400 long generations at once: each reserves 16,000 output tokens, uses 3,000 and takes 61 s. */
    private static List<PacedRun.Request> longGenerations() {
        List<PacedRun.Request> requests = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Candidate candidate = new Candidate(String.format("r%03d", i), Lane.BULK, "t",
                    TokenUsage.of(6_000, MAX_TOKENS), 0, Long.MAX_VALUE);
            requests.add(new PacedRun.Request(candidate, 0, TokenUsage.of(6_000, GENERATED), LATENCY_MILLIS));
        }
        return requests;
    }

    private static long drainMillis(List<PacedRun.Admitted> admitted) {
        return admitted.stream().mapToLong(PacedRun.Admitted::atMillis).max().orElseThrow() + LATENCY_MILLIS;
    }

    @Test
    void longGenerationsUnderATokenBucketRunAtTheRateOfUseAndNeverOverdrawIt() {
        List<PacedRun.Admitted> strict = PacedRun.run(
                Pacer.create(SPLIT, PacerSettings.builder().headroom(false).build()), longGenerations());
        List<PacedRun.Admitted> modelled = PacedRun.run(Pacer.create(SPLIT, PacerSettings.defaults()), longGenerations());

        assertThat(modelled).hasSize(400);
        assertTokenBucketNeverOverdrawn(modelled, QuotaDimension.OUTPUT_TOKENS, SPLIT.outputTpm());
        assertTokenBucketNeverOverdrawn(modelled, QuotaDimension.INPUT_TOKENS, SPLIT.inputTpm());
        // the strict bound: 17.8 calls a minute, 22.5 minutes; the bucket's physical limit is under 8;
        // measured: 11.1 minutes
        assertThat(drainMillis(strict)).isGreaterThan(22 * 60_000L);
        // the model pays once the first 100 calls (5.6 minutes) leave the budget room for its probe
        assertThat(drainMillis(modelled)).as("with the refunds spent as they come back").isLessThan(12 * 60_000L);
    }

    /**
     * Replays the admissions into a token bucket of one minute's quota, refilled at the quota per
     * minute and refunded at each settlement: every reservation must find the bucket holding it.
     */
    private static void assertTokenBucketNeverOverdrawn(List<PacedRun.Admitted> admitted, QuotaDimension dimension,
            long quota) {
        record Event(long atMillis, int order, long amount) {
        }
        List<Event> events = new ArrayList<>();
        for (PacedRun.Admitted a : admitted) {
            long reserved = a.reservation().amount(dimension);
            events.add(new Event(a.atMillis(), 1, -reserved));
            events.add(new Event(a.atMillis() + a.request().latencyMillis(), 0,
                    reserved - a.settled().amount(dimension)));
        }
        events.sort(Comparator.comparingLong(Event::atMillis).thenComparingInt(Event::order));
        double level = quota;
        long at = 0;
        for (Event event : events) {
            level = Math.min(quota, level + (event.atMillis() - at) * quota / 60_000.0);
            at = event.atMillis();
            if (event.amount() < 0) {
                assertThat(level).as(dimension + " bucket at " + at + " ms").isGreaterThanOrEqualTo(-event.amount());
            }
            level = Math.min(quota, level + event.amount());
        }
    }

    @Test
    void theStrictBoundPaysForNothing() {
        PacerSettings strict = PacerSettings.builder().headroom(false).build();
        RefundingBucket bucket = new RefundingBucket(strict, budgets());

        bucket.idleMinute(0.95, 0);

        assertThat(bucket.paying(true, true, 0)).isFalse();
        assertThat(bucket.fitAt(new long[] {1}, 0.95, 0)).as("nothing is modelled").isGreaterThan(0);
    }

    @Test
    void theLevelRefillsAtTheTargetFromNothingAndAnIdleMinuteFillsIt() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());

        assertThat(bucket.fitAt(new long[] {60_000}, 0.5, 0)).as("60k at 60k a minute: a minute").isEqualTo(60_000);
        assertThat(bucket.fitAt(new long[] {60_001}, 0.5, 0)).as("beyond the capacity").isEqualTo(Long.MAX_VALUE);
        bucket.idleMinute(0.5, 1_000);
        assertThat(bucket.fitAt(new long[] {60_000}, 0.5, 1_000)).isEqualTo(1_000);
    }

    @Test
    void aSettlementGivesBackWhatTheCallDidNotUse() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());
        bucket.idleMinute(1.0, 0);
        bucket.charged(new long[] {100_000}, 1.0, 0);

        assertThat(bucket.fitAt(new long[] {100_000}, 1.0, 0)).as("20k left, 80k to refill at 2k a second")
                .isEqualTo(40_000);
        bucket.refunded(new long[] {80_000}, 1.0, 0);
        assertThat(bucket.fitAt(new long[] {80_000}, 1.0, 0)).isEqualTo(0);
    }

    @Test
    void aThrottleOfACallItPaidForWithdrawsItForAMinuteThenTwoThenForGood() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());
        Admission first = admission("a");
        Admission second = admission("b");
        Admission unpaid = admission("c");
        bucket.paidFor(first);
        bucket.paidFor(second);

        assertThat(bucket.paying(true, true, 0)).isTrue();
        assertThat(bucket.throttled(unpaid, 0)).as("not the model's").isFalse();
        assertThat(bucket.throttled(first, 1_000)).isTrue();
        assertThat(bucket.paying(true, true, 60_999)).isFalse();
        assertThat(bucket.throttled(second, 2_000)).as("sent before the withdrawal: the same answer").isTrue();
        assertThat(bucket.paying(true, true, 61_000)).isTrue();

        Admission third = admission("d");
        bucket.paidFor(third);
        assertThat(bucket.throttled(third, 100_000)).isTrue();
        assertThat(bucket.paying(true, false, 220_000)).as("no room in the budget").isFalse();
        assertThat(bucket.paying(true, true, 219_999)).isFalse();
        assertThat(bucket.paying(true, true, 220_000)).isTrue();
        assertThat(bucket.throttles()).isEqualTo(3);

        Admission fourth = admission("e");
        bucket.paidFor(fourth);
        assertThat(bucket.throttled(fourth, 230_000)).isTrue();
        assertThat(bucket.paying(true, true, 230_000 + 3_600_000)).as("a third withdrawal: no bucket").isFalse();
    }

    @Test
    void aFirstProbeWaitsForRoomInTheBudget() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());

        assertThat(bucket.paying(true, false, 0)).as("no room: not even a first probe").isFalse();
        assertThat(bucket.paying(true, true, 0)).isTrue();
    }

    @Test
    void aMeterThatWithdrewTheBankIsNoBucket() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());

        assertThat(bucket.paying(false, true, 0)).isFalse();
    }

    private static DimensionBudget[] budgets() {
        return new DimensionBudget[] {new DimensionBudget(QuotaDimension.TOKENS, 120_000)};
    }

    private static Admission admission(String id) {
        Candidate candidate = new Candidate(id, Lane.BULK, "t", TokenUsage.of(1_000, 0), 0, Long.MAX_VALUE);
        return new Admission(candidate, Charge.NONE, 0.0, 0, new SlidingWindowLedger.Entry[0], new long[0]);
    }
}
