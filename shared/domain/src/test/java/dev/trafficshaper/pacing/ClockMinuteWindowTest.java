package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.testing.PacerStates;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class ClockMinuteWindowTest {

    /** 600k TPM: a call reserves 6,000 tokens (100 a minute at the quota) and uses 4,000 of them. */
    private static final long QUOTA = 600_000;
    private static final long RESERVED = 6_000;
    private static final long ACTUAL = 4_000;
    private static final long LATENCY = 3_000;
    private static final PacerSettings HEADROOM = PacerSettings.builder().build();
    private static final PacerSettings STRICT = HEADROOM.toBuilder().headroom(false).build();

    /** A backlog of 600 calls queued at 50 s, drained until 15 minutes. */
    private static List<MeteredRun.Sent> drain(Pacer pacer, MeteredRun.Meter meter) {
        return MeteredRun.drain(pacer, meter, 600, RESERVED, ACTUAL, LATENCY, 50_000, 900_000);
    }

    private static Pacer pacer(PacerSettings settings) {
        return Pacer.create(Quota.tokensPerMinute(QUOTA), settings);
    }

    private static long finished(List<MeteredRun.Sent> sent) {
        return sent.get(sent.size() - 1).atMillis();
    }

    @Test
    void underAFixedWindowTheLearnerIsTrustedAndSpendsEachMinuteFromItsTurn() {
        Pacer pacer = pacer(HEADROOM);

        List<MeteredRun.Sent> sent = drain(pacer, new MeteredRun.FixedWindow(QUOTA));

        assertThat(pacer.minuteWindow().trusted()).isTrue();
        // The bank's throttle at 91 s is one the minute's account explains, so the minute from
        // 120 s is probed from its turn; it takes the whole minute unthrottled, so from 180 s the
        // clock minute is trusted: the sliding window still holds the calls of the minute before,
        // the clock minute does not, so the pacer spends it from its turn, at twice the even rate
        // (about 24 calls per 5 s at the target).
        assertThat(MeteredRun.accepted(sent, 180_000, 210_000)).as("the minute's first 30 s").isBetween(135L, 150L);
        assertThat(MeteredRun.accepted(sent, 210_000, 240_000)).as("the minute spent, it waits for the next")
                .isLessThan(10L);
        assertThat(sent).as("once trusted the clock minute never overdraws the meter")
                .noneMatch(s -> s.throttled() && s.atMillis() >= 120_000);
        assertThat(MeteredRun.throttles(sent)).as("only the bank's probe at the burst's start").isLessThanOrEqualTo(2);
        // (a sliding window's backlog now finishes about as soon: CatchUp fills its window at twice
        // the even rate too, so the strict bound is the baseline here)
        List<MeteredRun.Sent> strict = drain(pacer(STRICT),
                new MeteredRun.FixedWindow(QUOTA));
        assertThat(finished(sent)).as("ahead of the strict bound under the same fixed window").isLessThan(finished(strict));
    }

    @Test
    void aThrottleAtTheLevelTheMeterLastRefusedIsExplainedSoTheNextMinuteIsProbed() {
        // Another application takes a quarter of each minute: the meter refuses the pacer's calls
        // with the pacer's own account at 0.75 of the quota, which the quota alone never explains
        // (0.75 < 1 / 1.1). Read against the level the meter last refused at, it does.
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, QUOTA)};
        long[] call = {RESERVED};
        ClockMinuteWindow atTheQuota = new ClockMinuteWindow(HEADROOM);
        ClockMinuteWindow atTheLevel = atLevel(0.76, () -> false);
        for (ClockMinuteWindow learner : List.of(atTheQuota, atTheLevel)) {
            spend(learner, budgets, call, 75); // 75 calls of 6,000: 0.75 of the quota
        }

        atTheQuota.throttled(admission(75, 50_000), budgets, call, 50_000);
        atTheLevel.throttled(admission(75, 50_000), budgets, call, 50_000);

        assertThat(atTheQuota.windowFit(budgets, call, 0.95, 70_000, true, 60_000))
                .as("unexplained against the quota: minute 1 is not probed").isEqualTo(70_000);
        assertThat(atTheLevel.windowFit(budgets, call, 0.95, 70_000, true, 60_000))
                .as("explained against the refused level: minute 1 is probed from its turn").isEqualTo(60_000);
    }

    @Test
    void aMeterProvenToBankOpensNoProbeMinute() {
        // The refunding bucket's model has seen the meter take a call that neither a sliding nor a
        // fixed window of the quota takes: a throttle the minute's account explains is then the
        // bucket's, and a probe minute would only be refused by it too.
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, QUOTA)};
        long[] call = {RESERVED};
        AtomicBoolean proven = new AtomicBoolean();
        ClockMinuteWindow unproven = atLevel(1.0, () -> false);
        ClockMinuteWindow banking = atLevel(1.0, proven::get);
        for (ClockMinuteWindow learner : List.of(unproven, banking)) {
            spend(learner, budgets, call, 95); // 0.95 of the quota: the account explains a refusal
            learner.throttled(admission(95, 50_000), budgets, call, 50_000);
        }
        proven.set(true); // a call sent before the refusal settles: the proof comes after it

        assertThat(unproven.windowFit(budgets, call, 0.95, 70_000, true, 60_000))
                .as("minute 1 is probed from its turn").isEqualTo(60_000);
        assertThat(banking.acting(60_000)).isFalse();
        assertThat(banking.windowFit(budgets, call, 0.95, 70_000, true, 60_000))
                .as("proven to bank: the sliding fit alone").isEqualTo(70_000);
        assertThat(banking.windowFit(budgets, call, 0.95, 130_000, true, 120_000))
                .as("nor in a later minute").isEqualTo(130_000);
        proven.set(false); // the model's proof contradicted by a throttle: the probe is still owed
        assertThat(banking.windowFit(budgets, call, 0.95, 190_000, true, 180_000)).isEqualTo(180_000);
    }

    @Test
    void belowTheQuotaATrustedMinuteRefusedWithItsAccountFullKeepsTheTrustAndOneRefusedEarlyLosesIt() {
        // The meter refuses this pacer at 0.75 of the quota. A fixed window refuses a trusted
        // minute's calls once its account is full, wherever the other load put the edge this
        // minute: the target answers that. A sliding window refuses the calls a trusted minute
        // sends at its turn, its 60 s still full and the account nearly empty: a contradiction.
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, QUOTA)};
        long[] call = {RESERVED};
        ClockMinuteWindow full = trustedBelowTheQuota(budgets);
        ClockMinuteWindow early = trustedBelowTheQuota(budgets);
        Admission last = null;
        for (int i = 0; i < 74; i++) { // 0.74 of the quota, each call sent on the minute's account alone
            last = admission(i, 60_000 + i * 100);
            full.admitted(last, budgets, call, true, false, 60_000 + i * 100);
        }
        Admission first = admission(0, 60_000);
        early.admitted(first, budgets, call, true, false, 60_000);
        for (int i = 1; i < 74; i++) { // sent after it, before its refusal came back: not what it met
            early.admitted(admission(i, 60_000 + i), budgets, call, true, false, 60_000 + i);
        }

        assertThat(full.throttled(last, budgets, call, 67_500))
                .as("the account explains it: the target's, booked in the budget (only the minute sent it)")
                .isEqualTo(ClockMinuteWindow.Answer.FULL_MINUTE_EXTRA);
        assertThat(full.accountFill(budgets, 67_500)).as("where the meter refused").isCloseTo(0.74, offset(1e-9));
        assertThat(full.trusted()).isTrue();
        // the account when it went explains nothing, whatever the calls since added to it
        assertThat(early.throttled(first, budgets, call, 60_100)).isEqualTo(ClockMinuteWindow.Answer.LEARNER);
        assertThat(early.trusted()).isFalse();
    }

    private static ClockMinuteWindow trustedBelowTheQuota(DimensionBudget[] budgets) {
        ClockMinuteWindow learner = atLevel(0.75, () -> false);
        learner.restore(new PacerState.ClockMinuteState(0, true, 0, Map.of(QuotaDimension.TOKENS, 0L)), budgets, 0);
        return learner;
    }

    @Test
    void withAQuarterOfASlidingWindowTakenTheLearnerIsNeverTrustedAndCostsTwoThrottlesAtMost() {
        Pacer pacer = pacer(HEADROOM);

        List<MeteredRun.Sent> sent = drain(pacer, new MeteredRun.SlidingWindow(QUOTA * 3 / 4));

        assertThat(pacer.minuteWindow().trusted()).isFalse();
        assertThat(pacer.minuteWindow().throttles()).as("throttles the learner answered").isLessThanOrEqualTo(2L);
    }

    @Test
    void aSlidingWindowIsNeverTrustedAndCostsTheLearnerTwoThrottlesAtMost() {
        Pacer pacer = pacer(HEADROOM);

        List<MeteredRun.Sent> sent = drain(pacer, new MeteredRun.SlidingWindow(QUOTA));

        assertThat(pacer.minuteWindow().trusted()).isFalse();
        assertThat(pacer.minuteWindow().throttles()).as("throttles the learner answered").isLessThanOrEqualTo(2L);
        assertThat(MeteredRun.throttles(sent)).isLessThanOrEqualTo(4);
    }

    @Test
    void underASlidingWindowTheProbeMinuteSendsPastTheBoundNoFasterThanItsRefusalsComeBack() {
        // 4M TPM, 2,000 tokens in and 8,000 out reserved, 650 used: the spacing charges what a call
        // uses, so at twice the even rate reservations start at several times the quota's rate, and a
        // refusal takes 500 ms to come back. Once the probe minute's first call past the sliding bound
        // settled, sending on at that rate had about 20 calls refused before the first answer came
        // (47 here with no limit on the probe minute at all). The backlog is queued at a minute's
        // start, so the bank's refusals come while the minute's account explains them and open the
        // probe minute (queued 10 s before a turn, the account holds too little to explain them).
        Pacer pacer = Pacer.create(Quota.tokensPerMinute(4_000_000), HEADROOM);

        List<MeteredRun.Sent> sent = MeteredRun.drain(pacer, new MeteredRun.SlidingWindow(4_000_000), 8_000,
                TokenUsage.of(2_000, 8_000), TokenUsage.of(2_000, 650), 4_000, 500, 0, 900_000);

        assertThat(pacer.minuteWindow().trusted()).isFalse();
        assertThat(pacer.minuteWindow().throttles()).as("throttles the learner answered").isBetween(1L, 10L);
        assertThat(MeteredRun.accepted(sent, 0, 900_000)).as("every call served").isEqualTo(8_000);
    }

    @Test
    void aTokenBucketCostsTheLearnerTwoThrottlesAtMost() {
        Pacer pacer = pacer(HEADROOM);

        List<MeteredRun.Sent> sent = drain(pacer, new MeteredRun.TokenBucket(QUOTA));

        assertThat(pacer.minuteWindow().throttles()).as("throttles the learner answered").isLessThanOrEqualTo(2);
        assertThat(MeteredRun.throttles(sent)).isLessThanOrEqualTo(4);
    }

    @Test
    void withHeadroomOffNothingIsLearntAndNothingExported() {
        Pacer pacer = pacer(STRICT);

        drain(pacer, new MeteredRun.FixedWindow(QUOTA));

        assertThat(pacer.minuteWindow().trusted()).isFalse();
        assertThat(pacer.export(900_000).clockMinute()).isEqualTo(PacerState.ClockMinuteState.NONE);
    }

    @Test
    void aSuccessorKeepsTheTrustAndWhatTheCurrentMinuteHolds() {
        Pacer learnt = pacer(HEADROOM);
        drain(learnt, new MeteredRun.FixedWindow(QUOTA));
        Pacer busy = Pacer.resume(learnt.quota(), HEADROOM, learnt.export(900_000), 960_000);
        long now = 960_000;
        long reserved = 0;
        int sent = 0;
        while (sent < 40) {
            Decision decision = busy.decide(List.of(call(sent)), now);
            if (decision instanceof Decision.Admit admit) {
                reserved += admit.admission().reservation().amount(QuotaDimension.TOKENS);
                sent++;
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        PacerState state = busy.export(now);

        Pacer successor = Pacer.resume(busy.quota(), HEADROOM, state, now);

        assertThat(busy.minuteWindow().trusted()).as("carried from the first handoff").isTrue();
        assertThat(state.clockMinute().minuteStartMillis()).isEqualTo(960_000);
        assertThat(state.clockMinute().used()).containsEntry(QuotaDimension.TOKENS, reserved);
        assertThat(successor.minuteWindow().trusted()).isTrue();
        assertThat(successor.export(now).clockMinute()).isEqualTo(state.clockMinute());
    }

    /** A fixed window that also refuses what starts too close: within any second at most 12 calls (7.2× the even rate). */
    private static final class FixedWindowWithShortHorizon implements MeteredRun.Meter {
        private final MeteredRun.FixedWindow window = new MeteredRun.FixedWindow(QUOTA);
        private final ArrayDeque<Long> started = new ArrayDeque<>();

        @Override
        public Object reserve(long amount, long nowMillis) {
            while (!started.isEmpty() && started.peekFirst() <= nowMillis - 1_000) {
                started.pollFirst();
            }
            if (started.size() >= 12) {
                return null;
            }
            Object handle = window.reserve(amount, nowMillis);
            if (handle != null) {
                started.addLast(nowMillis);
            }
            return handle;
        }

        @Override
        public void settle(Object handle, long reserved, long actual, long nowMillis) {
            window.settle(handle, reserved, actual, nowMillis);
        }
    }

    @Test
    void onceTrustedEachMinuteIsSpentFromItsTurnAtTheQuickPace() {
        Pacer pacer = pacer(HEADROOM);

        List<MeteredRun.Sent> sent = drain(pacer, new MeteredRun.FixedWindow(QUOTA));

        // trusted from 180 s: 2 s at four times the even rate, then sixteen times, until the
        // minute's account holds the queue back (twice the even rate sent about 24 calls in 5 s)
        assertThat(MeteredRun.accepted(sent, 180_000, 185_000)).as("the minute's first 5 s").isGreaterThanOrEqualTo(60L);
        assertThat(sent).as("never past the minute's account").noneMatch(s -> s.throttled() && s.atMillis() >= 120_000);
        assertThat(pacer.export(900_000).clockMinute().quickRefused()).isFalse();
    }

    @Test
    void aQuickTurnTheMeterTookIsSpentFasterAtTheNextTurnAndASuccessorKeepsThePace() {
        Pacer pacer = pacer(HEADROOM);

        List<MeteredRun.Sent> sent = MeteredRun.drain(pacer, new MeteredRun.FixedWindow(QUOTA), 1_200, RESERVED, ACTUAL,
                LATENCY, 50_000, 241_000);

        // the first trusted turn (180 s) ramps at four times the even rate, then sixteen times; the
        // meter took it, so the turn from 240 s goes at twice what its densest second showed
        assertThat(sent).as("never refused").noneMatch(s -> s.throttled() && s.atMillis() >= 120_000);
        long densest = 0;
        for (long from = 180_000; from < 239_000; from += 50) {
            densest = Math.max(densest, MeteredRun.accepted(sent, from, from + 1_000));
        }
        double shown = densest * (double) RESERVED / QUOTA; // at most: a call reserves at most its estimate
        PacerState handedOver = pacer.export(241_000);
        assertThat(handedOver.clockMinute().quickPace()).as("raised from 16 to twice the densest second (%d calls)",
                densest).isGreaterThan(ClockMinuteWindow.QUICK_MULTIPLE).isLessThanOrEqualTo(2 * shown * 60 + 1e-9);
        long firstTurn = MeteredRun.accepted(sent, 180_000, 180_500);
        long nextTurn = MeteredRun.accepted(sent, 240_000, 240_500);
        assertThat(nextTurn).as("the next turn's first 500 ms against the first's (%d)", firstTurn)
                .isGreaterThanOrEqualTo(2 * firstTurn);

        Pacer successor = Pacer.resume(pacer.quota(), HEADROOM, handedOver, 241_000);
        assertThat(successor.minuteWindow().spacingMultiple(false, 241_000)).as("a successor goes on at it, no ramp")
                .isEqualTo(handedOver.clockMinute().quickPace());
    }

    @Test
    void aSubSecondLimitRefusesTheQuickPaceOnceAndTheTrustedMinuteGoesOnAtTwiceTheEvenRate() {
        Pacer pacer = pacer(HEADROOM);

        // queued early in a minute, so the bank's episode keeps its even pace (QuickBank's would
        // show the limit first, and the guard would hold the quick turn off from the start)
        List<MeteredRun.Sent> sent = MeteredRun.drain(pacer, new FixedWindowWithShortHorizon(), 600, RESERVED, ACTUAL,
                LATENCY, 5_000, 900_000);

        assertThat(pacer.minuteWindow().trusted()).as("the pace was refused, not the account").isTrue();
        assertThat(pacer.export(900_000).clockMinute().withdrawals()).as("never withdrawn").isZero();
        assertThat(pacer.export(900_000).clockMinute().quickRefused()).isTrue();
        assertThat(pacer.export(900_000).clockMinute().quickPace()).as("refused before a minute showed a pace")
                .isEqualTo(ClockMinuteWindow.QUICK_MULTIPLE);
        // the bank's throttle at 38 s makes the minute from 60 s a probe minute, trusted from 120 s
        long firstQuickRefusal = sent.stream().filter(s -> s.throttled() && s.atMillis() >= 120_000)
                .mapToLong(MeteredRun.Sent::atMillis).min().orElseThrow();
        assertThat(firstQuickRefusal).as("in the first trusted minute, past the ramp").isBetween(122_000L, 130_000L);
        assertThat(sent).as("refused once: nothing else from the first trusted minute on")
                .noneMatch(s -> s.throttled() && s.atMillis() >= 120_000 && s.atMillis() != firstQuickRefusal);
        assertThat(MeteredRun.accepted(sent, 180_000, 185_000)).as("the next minute from its turn, twice the even rate")
                .isBetween(10L, 40L);

        Pacer successor = Pacer.resume(pacer.quota(), HEADROOM, pacer.export(900_000), 900_000);
        assertThat(successor.minuteWindow().spacingMultiple(false, 900_000)).as("a successor does not try it again")
                .isEqualTo(ClockMinuteWindow.RATE_MULTIPLE);
        assertThat(Pacer.resume(pacer.quota(), HEADROOM, withQuickPace(pacer.export(900_000)), 900_000).minuteWindow()
                .spacingMultiple(false, 900_000)).as("one whose predecessor was never refused ramps to it")
                .isEqualTo(ClockMinuteWindow.QUICK_RAMP_MULTIPLE);
    }

    @Test
    void aSuccessorResumedJustAfterTheQuickPacesRefusalWaitsOutItsPauseAndTakesItsPredecessorsCallsForTheSameAnswer() {
        Pacer pacer = pacer(HEADROOM);
        List<MeteredRun.Sent> sent = MeteredRun.drain(pacer, new FixedWindowWithShortHorizon(), 600, RESERVED, ACTUAL,
                LATENCY, 5_000, 900_000);
        long refusedAt = sent.stream().filter(s -> s.throttled() && s.atMillis() >= 120_000)
                .mapToLong(MeteredRun.Sent::atMillis).min().orElseThrow();
        PacerState handedOver = pacer.export(900_000);
        assertThat(handedOver.clockMinute().quickRefusedAtMillis()).as("when the pace was refused")
                .isBetween(refusedAt, refusedAt + 1_000);
        long refusal = handedOver.clockMinute().quickRefusedAtMillis();
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, QUOTA)};
        long[] call = {RESERVED};
        long resumedAt = refusal + 200;

        ClockMinuteWindow successor = new ClockMinuteWindow(HEADROOM);
        successor.restore(handedOver.clockMinute(), budgets, resumedAt);

        assertThat(successor.windowFit(budgets, call, 0.95, resumedAt, true, resumedAt))
                .as("resumed 200 ms after the refusal: the sub-second horizon's pause goes on")
                .isEqualTo(refusal + ClockMinuteWindow.QUICK_ECHO_MILLIS);
        long[] reserved = {RESERVED};
        assertThat(successor.throttled(admission(1, refusal - 100), budgets, reserved, refusal + 300))
                .as("a predecessor's call sent just before the refusal: the same answer")
                .isEqualTo(ClockMinuteWindow.Answer.QUICK_PACE);
        assertThat(successor.throttled(admission(2, refusal - 30_000), budgets, reserved, refusal + 300))
                .as("one sent long before it is not").isEqualTo(ClockMinuteWindow.Answer.NONE);
        ClockMinuteWindow older = new ClockMinuteWindow(HEADROOM);
        older.restore(new PacerState.ClockMinuteState(0, true, PacerState.NEVER, Map.of(), PacerState.NEVER,
                false, 0, PacerState.NEVER, true, PacerState.NEVER), budgets, resumedAt);
        assertThat(older.windowFit(budgets, call, 0.95, resumedAt, true, resumedAt))
                .as("refused at a time not known: no pause").isEqualTo(resumedAt);
    }

    /** The same state with the quick pace never refused. */
    private static PacerState withQuickPace(PacerState state) {
        PacerState.ClockMinuteState m = state.clockMinute();
        PacerState.ClockMinuteState unrefused = new PacerState.ClockMinuteState(m.withdrawals(), m.trusted(),
                m.minuteStartMillis(), m.used(), m.probeMinuteStartMillis(), m.longCalls(), m.refusalMillis(),
                m.withdrawnAtMillis());
        return PacerStates.withClockMinute(state, unrefused);
    }

    @Test
    void whileTheClockMinuteBoundsTheWindowHeadroomLiftsTheTargetInsteadOfForgivingOpenCalls() {
        Pacer pacer = pacer(HEADROOM);

        // the backlog still queued at 240 s: the probe minute from 120 s and the trusted one from 180 s
        List<MeteredRun.Sent> sent = MeteredRun.drain(pacer, new MeteredRun.FixedWindow(QUOTA), 600, RESERVED,
                ACTUAL, LATENCY, 50_000, 240_000);

        assertThat(pacer.minuteWindow().trusted()).isTrue();
        PacerState state = pacer.export(240_000);
        // the sliding window holds the queue back from the bank's throttle on, but the minute's
        // account decides: forgiving the open calls frees nothing there, the target's lift does
        assertThat(state.lift()).as("the lift at the ceiling")
                .isCloseTo(HEADROOM.headroomCeiling() - HEADROOM.targetUtilization(), offset(1e-9));
        assertThat(state.forgiveness()).as("forgiveness stepped only once the lift was there").isLessThan(1.0);
        assertThat(MeteredRun.accepted(sent, 180_000, 240_000)).as("the trusted minute takes the quota, not the target")
                .isGreaterThanOrEqualTo(99L);
    }

    @Test
    void onceTrustedTheMinutesAccountHoldsBackWhatForgivingTheOpenCallsWouldSendPastIt() {
        Pacer pacer = pacer(HEADROOM);
        MeteredRun.FixedWindow meter = new MeteredRun.FixedWindow(QUOTA);
        drain(pacer, meter);
        assertThat(pacer.minuteWindow().trusted()).isTrue();

        // Calls that outlive the minute: the fixed window refunds none of them, while headroom,
        // with the sliding window binding, learns to forgive the open calls' unused reservation.
        List<MeteredRun.Sent> sent = MeteredRun.drain(pacer, meter, 600, RESERVED, ACTUAL / 2, 70_000, 900_000,
                2_400_000);

        assertThat(MeteredRun.accepted(sent, 0, Long.MAX_VALUE)).isEqualTo(600);
        assertThat(MeteredRun.throttles(sent)).as("the minute's account, not the forgiven window, bounds each call")
                .isZero();
        assertThat(pacer.minuteWindow().trusted()).isTrue();
    }

    @Test
    void callsThatOutliveTheMinuteAnswerTheProbeByTimeSoAFixedWindowIsStillLearnt() {
        // long generations: 16,000 reserved, 3,000 used, 61 s a call. No probe call settles within
        // the minute that probes, so the turn is answered by time (a call out longer than a refusal
        // takes to come back went through), and proves once one of those calls went past the
        // sliding bound while the minute had room; a probe minute none of whose calls past the
        // bound was decisive leaves the probe owed (here the first probe minute, 120-180 s, tells
        // nothing: without the owed probe the learner never probed again)
        Pacer fixed = pacer(HEADROOM);
        List<MeteredRun.Sent> learnt = MeteredRun.drain(fixed, new MeteredRun.FixedWindow(QUOTA), 1_200, 16_000,
                3_000, 61_000, 50_000, 2_400_000);
        Pacer sliding = pacer(HEADROOM);
        List<MeteredRun.Sent> refused = MeteredRun.drain(sliding, new MeteredRun.SlidingWindow(QUOTA), 1_200, 16_000,
                3_000, 61_000, 50_000, 2_400_000);

        assertThat(fixed.minuteWindow().trusted()).as("the fixed window learnt from calls that outlive it").isTrue();
        assertThat(MeteredRun.accepted(learnt, 0, Long.MAX_VALUE)).isEqualTo(1_200);
        assertThat(MeteredRun.throttles(learnt)).isLessThanOrEqualTo(2);
        assertThat(sliding.minuteWindow().trusted()).as("a sliding window refuses the probe past its bound").isFalse();
        assertThat(MeteredRun.accepted(refused, 0, Long.MAX_VALUE)).isEqualTo(1_200);
        assertThat(MeteredRun.throttles(refused)).isLessThanOrEqualTo(4);
    }

    @Test
    void aCallAdmittedJustBeforeTheTurnCountsInTheNextMinuteUntilItEndsThenOnlyItsUsage() {
        Pacer pacer = pacer(HEADROOM);
        Admission late = admitAt(pacer, 0, 59_000);
        Admission next = admitAt(pacer, 1, 61_000);
        long reservedLate = tokens(late.reservation());
        long reservedNext = tokens(next.reservation());

        assertThat(pacer.export(61_000).clockMinute().used()).as("it may have reached the meter after the turn")
                .containsEntry(QuotaDimension.TOKENS, reservedLate + reservedNext);

        pacer.settle(late, TokenUsage.of(ACTUAL, 0), 62_000);

        assertThat(pacer.export(62_000).clockMinute().used())
                .as("charged to the new minute, it was refunded there; charged to the old one, it costs nothing")
                .containsEntry(QuotaDimension.TOKENS, ACTUAL + reservedNext);
    }

    @Test
    void onceTheDrainersOwnCallsAreSeenToReachTheMeterAtOnceOnlyItsLastMomentsBeforeTheTurnCountInTheNextMinute() {
        Pacer pacer = pacer(HEADROOM);
        Admission first = admitAt(pacer, 0, 10_000);
        pacer.started(first, 10_000);
        pacer.reached(first, 10_050, 13_000); // its answer, less Bedrock's latency: there 50 ms after its start
        Admission before = admitAt(pacer, 1, 59_000);
        pacer.started(before, 59_000);
        Admission atTheTurn = admitAt(pacer, 2, 59_800);
        pacer.started(atTheTurn, 59_800);
        Admission dispatched = admitAt(pacer, 3, 59_000); // never started here: a processor makes its call
        Admission next = admitAt(pacer, 4, 61_000);

        assertThat(pacer.export(61_000).clockMinute().used())
                .as("a call the drainer started 1 s before the turn reached the old minute; one started 200 ms "
                        + "before, or one dispatched 1 s before (its way's span is not known), may not have")
                .containsEntry(QuotaDimension.TOKENS, tokens(atTheTurn.reservation()) + tokens(dispatched.reservation())
                        + tokens(next.reservation()));

        pacer.settle(atTheTurn, TokenUsage.of(ACTUAL, 0), 62_000);

        assertThat(pacer.export(62_000).clockMinute().used()).as("once it ended, only its usage")
                .containsEntry(QuotaDimension.TOKENS, ACTUAL + tokens(dispatched.reservation()) + tokens(next.reservation()));
    }

    @Test
    void theLastLookBeforeATurnIsJustOutsideTheSpanInWhichTheDrainersOwnCallsMayReachTheNextMinute() {
        Pacer pacer = pacer(HEADROOM);

        assertThat(pacer.lookBeforeTurn(10_000)).as("2 s until a lag is known").isEqualTo(57_999L);
        assertThat(pacer.lookBeforeTurn(57_999)).as("past it: the next minute's").isEqualTo(117_999L);

        Admission first = admitAt(pacer, 0, 10_000);
        pacer.started(first, 10_000);
        pacer.reached(first, 10_050, 13_000); // there 50 ms after its start
        assertThat(pacer.lookBeforeTurn(13_000)).as("the lag seen and the margin: 300 ms").isEqualTo(59_699L);
        Admission atTheLook = admitAt(pacer, 1, 59_699);
        pacer.started(atTheLook, 59_699);
        assertThat(pacer.export(60_000).clockMinute().used()).as("a call started then is the old minute's alone")
                .doesNotContainKey(QuotaDimension.TOKENS);
    }

    @Test
    void dispatchedCallsSeenToStartAtOnceNarrowTheGuardForCallsWhoseWayIsNotKnown() {
        Pacer pacer = pacer(HEADROOM);
        Admission first = admitAt(pacer, 0, 10_000);
        pacer.settle(first, TokenUsage.of(ACTUAL, 0), 10_100, 13_000); // started at its processor 100 ms after admission
        admitAt(pacer, 1, 59_000);
        Admission late = admitAt(pacer, 2, 59_800);
        Admission next = admitAt(pacer, 3, 61_000);

        assertThat(pacer.export(61_000).clockMinute().used())
                .containsEntry(QuotaDimension.TOKENS, tokens(late.reservation()) + tokens(next.reservation()));
    }

    @Test
    void aLateCallThatEndsBeforeTheTurnCarriesOnlyItsUsageAndAReleasedOneNothing() {
        Pacer settled = pacer(HEADROOM);
        settled.settle(admitAt(settled, 0, 58_500), TokenUsage.of(ACTUAL, 0), 59_500);
        long reservedNext = tokens(admitAt(settled, 1, 61_000).reservation());

        assertThat(settled.export(61_000).clockMinute().used()).containsEntry(QuotaDimension.TOKENS, ACTUAL + reservedNext);

        Pacer released = pacer(HEADROOM);
        released.release(admitAt(released, 0, 59_000), 59_500);
        long reservedOther = tokens(admitAt(released, 1, 61_000).reservation());

        assertThat(released.export(61_000).clockMinute().used()).containsEntry(QuotaDimension.TOKENS, reservedOther);
    }

    private static Admission admitAt(Pacer pacer, int i, long nowMillis) {
        Decision decision = pacer.decide(List.of(call(i)), nowMillis);
        assertThat(decision).as("an empty window admits at once").isInstanceOf(Decision.Admit.class);
        return ((Decision.Admit) decision).admission();
    }

    private static long tokens(Charge charge) {
        return charge.amount(QuotaDimension.TOKENS);
    }

    @Test
    void aProbeMinuteWithoutRoomInTheBudgetLeavesTheProbeOwedToTheNextMinute() {
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, QUOTA)};
        long[] call = {RESERVED};
        ClockMinuteWindow learner = owingAProbe(budgets, call);

        assertThat(learner.windowFit(budgets, call, 0.95, 70_000, false, 60_000))
                .as("minute 1 is the probe minute, but the budget has no room").isEqualTo(70_000);
        assertThat(learner.windowFit(budgets, call, 0.95, 130_000, true, 120_000))
                .as("minute 2, with room: the probe is still owed, so the minute's account takes the call")
                .isEqualTo(120_000);
        learner.admitted(admission(101, 120_000), budgets, call, true, false, 120_000);

        assertThat(learner.windowFit(budgets, call, 0.95, 190_000, true, 180_000))
                .as("a probe minute that sent its call is spent: minute 3 is not probed").isEqualTo(190_000);
    }

    @Test
    void aSuccessorOwesTheProbeItsPredecessorOwed() {
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, QUOTA)};
        long[] call = {RESERVED};
        ClockMinuteWindow learner = owingAProbe(budgets, call);

        PacerState.ClockMinuteState state = learner.export(budgets, 55_000);
        ClockMinuteWindow successor = new ClockMinuteWindow(HEADROOM);
        successor.restore(state, budgets, 55_000);
        ClockMinuteWindow forgetful = new ClockMinuteWindow(HEADROOM);
        forgetful.restore(new PacerState.ClockMinuteState(state.withdrawals(), state.trusted(),
                state.minuteStartMillis(), state.used()), budgets, 55_000);

        assertThat(state.probeMinuteStartMillis()).isEqualTo(60_000);
        assertThat(state.refusalMillis()).as("the throttle came back at once: the least refusal time")
                .isEqualTo(ClockMinuteWindow.DEFAULT_REFUSAL_MILLIS);
        assertThat(successor.windowFit(budgets, call, 0.95, 70_000, true, 60_000))
                .as("minute 1 is the successor's probe minute: its account takes the call").isEqualTo(60_000);
        assertThat(forgetful.windowFit(budgets, call, 0.95, 70_000, true, 60_000))
                .as("a state without the probe (an older one) starts the learner over").isEqualTo(70_000);
        assertThat(successor.export(budgets, 60_000).probeMinuteStartMillis()).as("and owes it on")
                .isEqualTo(60_000);

        PacerState.ClockMinuteState later = learner.export(budgets, 125_000);
        ClockMinuteWindow late = new ClockMinuteWindow(HEADROOM);
        late.restore(later, budgets, 125_000);
        assertThat(later.probeMinuteStartMillis()).as("minute 1 sent nothing past the bound: the probe is still owed")
                .isEqualTo(120_000);
        assertThat(late.export(budgets, 125_000).probeMinuteStartMillis())
                .as("a successor resuming mid-minute missed that minute's turn: it probes the next one")
                .isEqualTo(180_000);
    }

    /** A learner whose minute 0 spent its account and took a throttle the account explains: minute 1 is probed. */
    private static ClockMinuteWindow owingAProbe(DimensionBudget[] budgets, long[] call) {
        ClockMinuteWindow learner = new ClockMinuteWindow(HEADROOM);
        spend(learner, budgets, call, 100);
        learner.throttled(admission(100, 50_000), budgets, call, 50_000);
        return learner;
    }

    /** Minute 0's account takes {@code calls} calls, one every 100 ms from 1 s, on the sliding window. */
    private static void spend(ClockMinuteWindow learner, DimensionBudget[] budgets, long[] call, int calls) {
        for (int i = 0; i < calls; i++) {
            learner.admitted(admission(i, 1_000 + i * 100), budgets, call, false, false, 1_000 + i * 100);
        }
    }

    /** A learner the meter last refused at {@code level} of the quota, proven to bank while {@code meterBanks}. */
    private static ClockMinuteWindow atLevel(double level, BooleanSupplier meterBanks) {
        return new ClockMinuteWindow(HEADROOM, () -> TurnGuard.DEFAULT_MILLIS, () -> level, meterBanks);
    }

    private static Admission admission(int i, long atMillis) {
        return new Admission(call(i), Charge.NONE, 0.0, atMillis, null, null);
    }

    @Test
    void anOlderStateReadsAsNothingLearnt() {
        Pacer predecessor = pacer(HEADROOM);
        PacerState state = predecessor.export(0);
        PacerState older = new PacerState(state.capturedAtMillis(), state.outputBurndown(), state.dimensions(),
                state.target(), state.lastThrottleAtMillis(), state.lastAdmissionAtMillis(), state.slowStartAtMillis(),
                state.tenantNextSlotMicros(), state.outputShare(), state.forgiveness(), state.lift(),
                state.headroomBudget(), state.inputScale(), state.bank());

        Pacer successor = Pacer.resume(predecessor.quota(), HEADROOM, older, 0);

        assertThat(older.clockMinute()).isEqualTo(PacerState.ClockMinuteState.NONE);
        assertThat(successor.minuteWindow().trusted()).isFalse();
        assertThat(successor.minuteWindow().off()).isFalse();
    }

    private static Candidate call(int i) {
        return new Candidate("h" + i, Lane.BULK, "t", TokenUsage.of(RESERVED, 0), 0, Long.MAX_VALUE);
    }
}
