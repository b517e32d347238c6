package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
    void theLevelRefillsAtTheTargetFromNothingUpToTheWholeQuotaAndAnIdleMinuteFillsIt() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());

        assertThat(bucket.fitAt(new long[] {60_000}, 0.5, 0)).as("60k at 60k a minute: a minute").isEqualTo(60_000);
        assertThat(bucket.fitAt(new long[] {120_000}, 0.5, 0)).as("the whole quota, at half of it a minute")
                .isEqualTo(120_000);
        assertThat(bucket.fitAt(new long[] {120_001}, 0.5, 0)).as("beyond the quota").isEqualTo(Long.MAX_VALUE);
        bucket.idleMinute(0.5, 1_000);
        assertThat(bucket.fitAt(new long[] {120_000}, 0.5, 1_000)).as("an idle minute banks the whole quota, not half")
                .isEqualTo(1_000);
    }

    @Test
    void aSettlementGivesBackWhatTheCallDidNotUse() {
        RefundingBucket bucket = chargedFromFull(100_000, 0);
        Admission call = admission("x");
        bucket.watch(call, new long[] {100_000}, 0);

        assertThat(bucket.fitAt(new long[] {100_000}, 1.0, 0))
                .as("20k left; the full meter may refill nothing until the call reaches it (5 s), "
                        + "then 80k at 2k a second")
                .isEqualTo(45_000);
        bucket.refunded(call, new long[] {80_000}, 1.0, 0); // it settled: it reached the meter
        assertThat(bucket.fitAt(new long[] {80_000}, 1.0, 0)).isEqualTo(0);
    }

    @Test
    void aThrottleOfACallItPaidForWithdrawsItForAMinuteThenTwoThenForGood() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());
        Admission first = admission("a");
        Admission second = admission("b");
        Admission unpaid = admission("c");
        bucket.paidFor(first, true);
        bucket.paidFor(second, true);

        assertThat(bucket.paying(true, true, 0)).isTrue();
        assertThat(bucket.throttled(unpaid, true, 1.0, 0)).as("not the model's").isFalse();
        assertThat(bucket.throttled(first, true, 1.0, 1_000)).isTrue();
        assertThat(bucket.paying(true, true, 60_999)).isFalse();
        assertThat(bucket.throttled(second, true, 1.0, 2_000)).as("sent before the withdrawal: the same answer").isTrue();
        assertThat(bucket.paying(true, true, 61_000)).isTrue();

        Admission third = admission("d");
        bucket.paidFor(third, true);
        assertThat(bucket.throttled(third, true, 1.0, 100_000)).isTrue();
        assertThat(bucket.paying(true, false, 220_000)).as("no room in the budget").isFalse();
        assertThat(bucket.paying(true, true, 219_999)).isFalse();
        assertThat(bucket.paying(true, true, 220_000)).isTrue();
        assertThat(bucket.throttles()).isEqualTo(3);

        Admission fourth = admission("e");
        bucket.paidFor(fourth, true);
        assertThat(bucket.throttled(fourth, true, 1.0, 230_000)).isTrue();
        assertThat(bucket.paying(true, true, 230_000 + 3_600_000)).as("a third withdrawal: no bucket").isFalse();
    }

    @Test
    void aFirstProbeWaitsForRoomInTheBudget() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());

        assertThat(bucket.paying(true, false, 0)).as("no room: not even a first probe").isFalse();
        assertThat(bucket.paying(true, true, 0)).isTrue();
    }

    /** 400 long generations queued after an idle minute into {@code meter}, drained until 30 minutes. */
    private static List<MeteredRun.Sent> drainLongGenerations(Pacer pacer, MeteredRun.Meter meter) {
        return MeteredRun.drain(pacer, meter, 400, MAX_TOKENS, GENERATED, LATENCY_MILLIS, 0, 1_800_000);
    }

    @Test
    void aTokenBucketThatTookWhatNeitherWindowWouldIsPaidForBeforeTheBudgetHasRoom() {
        Pacer pacer = Pacer.create(MeteredRun.tokens(300_000), PacerSettings.defaults());

        List<MeteredRun.Sent> sent = drainLongGenerations(pacer, new MeteredRun.TokenBucket(300_000));

        assertThat(MeteredRun.throttles(sent)).isZero();
        assertThat(pacer.refundingBucket().proven()).isTrue();
        // the bank's minute took what neither window of the quota would, and its calls settle from
        // 61 s: the model pays from then on, where its first call waited for the budget's room,
        // the 100th call (measured: at 138 s; at 187 s when it waited)
        assertThat(sent.get(99).atMillis()).as("the 100th call").isLessThan(150_000);
        assertThat(pacer.budgetedThrottles()).isZero();
    }

    @Test
    void aRefusalOfACallPaidOnTheProofAloneEndsItAndTheModelWaitsForTheBudgetAgain() {
        Pacer pacer = Pacer.create(MeteredRun.tokens(300_000), PacerSettings.defaults());
        MeteredRun.TokenBucket bucket = new MeteredRun.TokenBucket(300_000);
        long[] refusedAt = {-1};
        MeteredRun.Meter surprising = new MeteredRun.Meter() { // a bucket that refuses one call at 100 s
            @Override
            public Object reserve(long amount, long nowMillis) {
                if (nowMillis >= 100_000 && refusedAt[0] < 0) {
                    refusedAt[0] = nowMillis;
                    return null;
                }
                return bucket.reserve(amount, nowMillis);
            }

            @Override
            public void settle(Object handle, long reserved, long actual, long nowMillis) {
                bucket.settle(handle, reserved, actual, nowMillis);
            }
        };

        List<MeteredRun.Sent> sent = drainLongGenerations(pacer, surprising);

        assertThat(MeteredRun.throttles(sent)).isOne();
        long before = sent.stream().filter(s -> s.atMillis() < refusedAt[0]).count();
        assertThat(before).as("the model paid before the budget had room").isLessThan(100);
        assertThat(pacer.budgetedThrottles()).as("a call sent on the proof is no probe").isZero();
        assertThat(pacer.refundingBucket().proven()).isFalse();
        assertThat(pacer.snapshot(refusedAt[0]).target()).as("the target answers it").isLessThan(0.95);
        assertThat(pacer.refundingBucket().paying(true, true, sent.get(sent.size() - 1).atMillis()))
                .as("withdrawn: it pays again only within the budget, a minute on").isTrue();
        assertThat(pacer.refundingBucket().paying(true, false, sent.get(sent.size() - 1).atMillis())).isFalse();
    }

    @Test
    void neitherWindowMeterEverProvesTheBucket() {
        Pacer sliding = Pacer.create(MeteredRun.tokens(300_000), PacerSettings.defaults());
        Pacer fixed = Pacer.create(MeteredRun.tokens(300_000), PacerSettings.defaults());

        drainLongGenerations(sliding, new MeteredRun.SlidingWindow(300_000));
        drainLongGenerations(fixed, new MeteredRun.FixedWindow(300_000));

        assertThat(sliding.refundingBucket().proven()).isFalse();
        assertThat(fixed.refundingBucket().proven()).isFalse();
    }

    @Test
    void aSettledCallBothWindowsWouldRefuseProvesAndAReleasedOneDoesNot() {
        DimensionBudget[] budgets = budgets();
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets);
        Admission released = null;
        Admission proving = null;
        for (int i = 0; i < 12; i++) { // 12 × 12,000 = 1.2 × the 120k quota, within one clock minute
            long at = 1_000L * i;
            budgets[0].charge(12_000, 12_000, 1.0, at);
            Admission admission = admission("p" + i);
            bucket.watch(admission, new long[] {12_000}, at);
            released = i == 10 ? admission : released;
            proving = i == 11 ? admission : proving;
        }

        assertThat(bucket.paying(true, false, 12_000)).as("nothing settled yet").isFalse();
        bucket.ended(released, 12_000);
        assertThat(bucket.proven()).as("a release shows nothing").isFalse();
        bucket.settled(proving, 0, 0);
        assertThat(bucket.proven()).isTrue();
        assertThat(bucket.paying(true, false, 12_000)).as("no room in the budget, but no probe either").isTrue();
    }

    @Test
    void aCallInAMinutesLastTwoSecondsProvesNothingForTheFixedWindow() {
        DimensionBudget[] budgets = budgets();
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets);
        Admission last = null;
        for (int i = 0; i < 12; i++) { // all at 58–59 s: they may reach the meter in the next minute
            long at = 58_000 + 100L * i;
            budgets[0].charge(12_000, 12_000, 1.0, at);
            last = admission("p" + i);
            bucket.watch(last, new long[] {12_000}, at);
        }

        bucket.settled(last, 0, 0);

        assertThat(bucket.proven()).isFalse();
    }

    @Test
    void aThrottleOfACallPaidOnTheProofAloneIsNotTheBudgetsAndEndsTheProofForGood() {
        DimensionBudget[] budgets = budgets();
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets);
        Admission proving = null;
        for (int i = 0; i < 12; i++) {
            budgets[0].charge(12_000, 12_000, 1.0, 1_000L * i);
            proving = admission("p" + i);
            bucket.watch(proving, new long[] {12_000}, 1_000L * i);
        }
        bucket.settled(proving, 0, 0);
        Admission onProof = admission("q");
        Admission withinBudget = admission("r");
        bucket.paidFor(onProof, false);
        bucket.paidFor(withinBudget, true);

        assertThat(bucket.throttled(onProof, false, 1.0, 20_000)).as("answered without room: the pacer's, not a probe's")
                .isFalse();
        assertThat(bucket.proven()).isFalse();
        assertThat(bucket.throttles()).isZero();
        assertThat(bucket.throttled(withinBudget, false, 1.0, 20_100)).as("sent within the budget: booked there").isTrue();
        assertThat(bucket.paying(true, false, 20_000 + 3_600_000)).as("after a withdrawal only the budget's room")
                .isFalse();
        assertThat(bucket.paying(true, true, 20_000 + 3_600_000)).isTrue();

        for (int i = 0; i < 12; i++) { // the same evidence again proves nothing once contradicted
            long at = 4_000_000 + 1_000L * i;
            budgets[0].charge(12_000, 12_000, 1.0, at);
            proving = admission("s" + i);
            bucket.watch(proving, new long[] {12_000}, at);
        }
        bucket.settled(proving, 0, 0);
        assertThat(bucket.proven()).isFalse();
    }

    @Test
    void aSuccessorResumesTheTrustItsWithdrawalsAndTheLevel() {
        RefundingBucket predecessor = new RefundingBucket(PacerSettings.defaults(), budgets());
        predecessor.idleMinute(1.0, 0);
        predecessor.charged(new long[] {100_000}, 1.0, 0); // 20k left, refilling at 2k a second
        Admission paid = admission("a");
        predecessor.paidFor(paid, true);
        predecessor.throttled(paid, true, 1.0, 1_000); // withdrawn for a minute

        PacerState.BucketModelState state = predecessor.export(1.0, 5_000);
        RefundingBucket successor = new RefundingBucket(PacerSettings.defaults(), budgets());
        successor.restore(state, 5_000);

        // the charge may have reached the full meter only at 5 s: nothing refilled before
        assertThat(state.level()).containsEntry(QuotaDimension.TOKENS, 20_000L);
        assertThat(state.withdrawals()).isEqualTo(1);
        assertThat(successor.fitAt(new long[] {100_000}, 1.0, 5_000)).as("the level goes on refilling")
                .isEqualTo(45_000);
        assertThat(successor.paying(true, true, 60_999)).as("the withdrawal's wait goes on").isFalse();
        assertThat(successor.paying(true, true, 61_000)).isTrue();
        predecessor.paying(true, true, 61_000);
        assertThat(successor.export(1.0, 61_000)).isEqualTo(predecessor.export(1.0, 61_000));

        RefundingBucket fresh = new RefundingBucket(PacerSettings.defaults(), budgets());
        fresh.restore(PacerState.BucketModelState.NONE, 5_000);
        assertThat(fresh.fitAt(new long[] {100_000}, 1.0, 5_000)).as("nothing learnt: an empty model")
                .isEqualTo(5_000 + 50_000);
    }

    @Test
    void aProvenMeterStaysProvenForTheSuccessor() {
        Pacer pacer = Pacer.create(MeteredRun.tokens(300_000), PacerSettings.defaults());
        drainLongGenerations(pacer, new MeteredRun.TokenBucket(300_000));

        PacerState handoff = pacer.export(1_800_000, List.of());
        Pacer successor = Pacer.resume(pacer.quota(), PacerSettings.defaults(), handoff, 1_800_000);
        Pacer afterCrash = Pacer.resume(pacer.quota(), PacerSettings.defaults(), pacer.export(1_800_000), 1_800_000);

        assertThat(pacer.refundingBucket().proven()).isTrue();
        assertThat(successor.refundingBucket().proven()).isTrue();
        assertThat(successor.export(1_800_000, List.of()).bank().bucketModel()).isEqualTo(handoff.bank().bucketModel());
        assertThat(pacer.export(1_800_000).bank().bucketModel())
                .as("a periodic status, what a crashed drainer leaves, carries no model: it misses the admissions after it")
                .isEqualTo(PacerState.BucketModelState.NONE);
        assertThat(afterCrash.refundingBucket().proven()).isFalse();
    }

    @Test
    void aMeterThatWithdrewTheBankIsNoBucket() {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());

        assertThat(bucket.paying(false, true, 0)).isFalse();
    }


    @Test
    void aChargeThatMayStillBeOnItsWayToAFullMeterHoldsTheModelsRefillBack() {
        RefundingBucket bucket = chargedFromFull(60_000, 1_000);

        // no call has started yet: it may reach the full meter, which refills nothing until then, 5 s on
        assertThat(level(bucket, 1.0, 3_000)).isEqualTo(60_000);
        assertThat(bucket.fitAt(new long[] {70_000}, 1.0, 3_000)).as("surely arrived at 6 s, then 10k more")
                .isEqualTo(11_000);
        assertThat(level(bucket, 1.0, 6_000)).isEqualTo(60_000);
        assertThat(level(bucket, 1.0, 7_000)).as("then the quota's 2,000 a second").isEqualTo(62_000);
    }

    @Test
    void aRefundWhileAChargeIsOnItsWayFillsTheModelOnlyToTheQuotaLessThatCharge() {
        RefundingBucket bucket = chargedFromFull(30_000, 1_000);
        Admission early = admission("early");
        bucket.watch(early, new long[] {30_000}, 1_000);
        bucket.charged(new long[] {40_000}, 1.0, 10_000); // 50,000 left, this one on its way

        bucket.settled(early, 1_000, 11_000);
        bucket.refunded(early, new long[] {30_000}, 1.0, 11_000); // the meter may be back at its cap

        assertThat(level(bucket, 1.0, 11_000)).isEqualTo(80_000);
    }

    @Test
    void aCallTheDrainerStartedItselfIsOnItsWayNoLonger() {
        RefundingBucket bucket = chargedFromFull(60_000, 1_000);
        Admission inline = admission("inline");
        bucket.watch(inline, new long[] {60_000}, 1_000);

        bucket.started(inline, 1.0, 1_000);

        assertThat(level(bucket, 1.0, 3_000)).isEqualTo(64_000);
    }

    @Test
    void aSuccessorCountsItsPredecessorsLatestCallsOnTheirWay() {
        RefundingBucket successor = new RefundingBucket(PacerSettings.defaults(), budgets());
        successor.restore(new PacerState.BucketModelState(Map.of(QuotaDimension.TOKENS, 60_000L), false, true, 0,
                PacerState.NEVER, 0), 10_000);
        Admission open = admission("open");
        successor.carried(open, new long[] {60_000}, 9_000, 10_000); // admitted 1 s before the capture
        successor.carried(admission("old"), new long[] {30_000}, 2_000, 10_000); // surely arrived

        assertThat(level(successor, 1.0, 12_000)).as("held at the quota less the call on its way").isEqualTo(60_000);
        assertThat(level(successor, 1.0, 15_000)).as("arrived by 14 s, then 2,000 a second").isEqualTo(62_000);
    }

    @Test
    void theSpanIsTheLongestLagOfTheLatestCallsWithAMargin() {
        RefundingBucket bucket = chargedFromFull(10_000, 1_000);
        Admission quick = admission("quick"); // admitted at 0 (the helper's), started 100 ms later
        bucket.watch(quick, new long[] {10_000}, 1_000);
        bucket.settled(quick, 100, 0);
        bucket.refunded(quick, new long[] {0}, 1.0, 1_500);
        bucket.idleMinute(1.0, 70_000);

        bucket.charged(new long[] {60_000}, 1.0, 70_000);

        // 100 ms + 250 ms: the refill is held back until 70.35 s, then 2,000 a second
        assertThat(level(bucket, 1.0, 70_350)).isEqualTo(60_000);
        assertThat(level(bucket, 1.0, 71_350)).isEqualTo(62_000);
    }

    @Test
    void onceProvenTheModelRefillsAtTheQuotaAndGetsBackWhatTheTargetHeldBack() {
        DimensionBudget[] budgets = budgets();
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets);
        bucket.idleMinute(0.5, 0);
        Admission proving = null;
        for (int i = 0; i < 12; i++) { // 12 × 11,500 within 1.1 s: 1.15 × the quota in both windows
            long at = 100L * i;
            budgets[0].charge(11_500, 11_500, 1.0, at);
            bucket.charged(new long[] {11_500}, 0.5, at);
            proving = admission("p" + i, at);
            bucket.watch(proving, new long[] {11_500}, at);
            bucket.started(proving, 0.5, at); // made in the drainer: nothing on its way
        }
        // at half the quota a minute: 1,000 a second, where the meter got 2,000
        assertThat(level(bucket, 0.5, 20_000)).as("-16,900 at 1.1 s, then 18.9 s at the target").isEqualTo(2_000);

        bucket.reached(proving, 1.0, 1_100, 1_100);
        bucket.settled(proving, 1_100, 1_100);
        bucket.refunded(proving, new long[] {0}, 0.5, 20_000);

        assertThat(bucket.proven()).isTrue();
        assertThat(level(bucket, 0.5, 21_000)).as("the quota's 2,000 a second, and the 20,000 the target held"
                + " back since it was full").isEqualTo(24_000);
        assertThat(level(bucket, 0.5, 30_000)).as("then the quota's 2,000 a second").isEqualTo(42_000);
    }

    @Test
    void aCallTheDrainerMadeThatReachedAFullMeterLateIsTakenBackFromTheRefill() {
        RefundingBucket bucket = chargedFromFull(60_000, 1_000);
        Admission cold = madeInDrainer(bucket, "cold", 60_000, 1_000);
        assertThat(level(bucket, 1.0, 3_000)).as("taken to have started at once").isEqualTo(64_000);

        // its answer: it reached Bedrock 700 ms after the drainer started it; the meter stayed full till then
        bucket.reached(cold, 1.0, 1_700, 1_700);

        assertThat(level(bucket, 1.0, 3_000)).isEqualTo(62_600);
    }

    @Test
    void aCallThatNeverEndsIsForgottenAfterFifteenMinutes() {
        RefundingBucket bucket = chargedFromFull(60_000, 1_000);
        Admission timedOut = madeInDrainer(bucket, "timed-out", 60_000, 1_000);
        long later = 1_000 + RefundingBucket.FORGET_MILLIS + 60_000;
        assertThat(level(bucket, 1.0, later)).isEqualTo(120_000);

        bucket.reached(timedOut, 1.0, 3_000, 3_000); // an answer this late is no longer waited for

        assertThat(level(bucket, 1.0, later)).isEqualTo(120_000);
    }

    @Test
    void aCallTheDrainerMadeFarBelowTheCapGivesNothingBackForItsLag() {
        RefundingBucket bucket = chargedFromFull(100_000, 1_000); // surely at the meter from 6 s
        bucket.charged(new long[] {10_000}, 1.0, 7_000); // 22,000 - 10,000 left (held at 20,000 till 6 s)
        Admission call = madeInDrainer(bucket, "call", 10_000, 7_000);

        bucket.reached(call, 1.0, 9_000, 9_000);

        assertThat(level(bucket, 1.0, 10_000)).as("a meter nearly 100,000 below its cap missed no refill")
                .isEqualTo(18_000);
    }

    @Test
    void aCallTheDrainerMadeBesideAChargeOnItsWayToAFullMeterGivesBackWhatTheMeterMissed() {
        RefundingBucket bucket = chargedFromFull(20_000, 1_000); // on its way to the full meter
        bucket.charged(new long[] {100_000}, 1.0, 1_000); // 0 left
        Admission call = madeInDrainer(bucket, "call", 100_000, 1_000);

        // it reached Bedrock by 3 s: the meter, charged neither call, sat at its cap until then
        bucket.reached(call, 1.0, 3_000, 3_000);

        assertThat(level(bucket, 1.0, 4_000)).isEqualTo(2_000);
    }

    @Test
    void aRefundTheMeterBookedAtItsCapIsNotCreditedWhole() {
        RefundingBucket bucket = chargedFromFull(30_000, 0);
        Admission early = madeInDrainer(bucket, "early", 30_000, 0);
        assertThat(level(bucket, 1.0, 15_000)).as("full again at 15 s").isEqualTo(120_000);

        // it ended at 5 s, when the model stood 20,000 below its ceiling; seen at 20 s
        bucket.settled(early, 0, 5_000);
        bucket.refunded(early, new long[] {25_000}, 1.0, 20_000);
        bucket.charged(new long[] {120_000}, 1.0, 20_000);

        assertThat(level(bucket, 1.0, 20_000)).as("the meter, full since 15 s, kept none of it").isZero();
    }

    /** The model's level at {@code nowMillis}, read as the most it covers at once (refilling at {@code share}). */
    static long level(RefundingBucket bucket, double share, long nowMillis) {
        long low = 0;
        long high = 120_000;
        while (low < high) {
            long mid = (low + high + 1) / 2;
            if (bucket.fitAt(new long[] {mid}, share, nowMillis) <= nowMillis) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /** The call charged {@code amount} at {@code atMillis} (just before), made by the drainer itself then. */
    private static Admission madeInDrainer(RefundingBucket bucket, String id, long amount, long atMillis) {
        Admission call = admission(id, atMillis);
        bucket.watch(call, new long[] {amount}, atMillis);
        bucket.started(call, 1.0, atMillis);
        return call;
    }

    /** A model of the 120k quota, full at {@code atMillis} and charged {@code amount} then. */
    private static RefundingBucket chargedFromFull(long amount, long atMillis) {
        RefundingBucket bucket = new RefundingBucket(PacerSettings.defaults(), budgets());
        bucket.idleMinute(1.0, atMillis);
        bucket.charged(new long[] {amount}, 1.0, atMillis);
        return bucket;
    }

    /** One dimension of 120k tokens a minute. */
    static DimensionBudget[] budgets() {
        return new DimensionBudget[] {new DimensionBudget(QuotaDimension.TOKENS, 120_000)};
    }

    private static Admission admission(String id) {
        return admission(id, 0);
    }

    static Admission admission(String id, long admittedAtMillis) {
        Candidate candidate = new Candidate(id, Lane.BULK, "t", TokenUsage.of(1_000, 0), 0, Long.MAX_VALUE);
        return new Admission(candidate, Charge.NONE, 0.0, admittedAtMillis, new SlidingWindowLedger.Entry[0],
                new long[0]);
    }
}
