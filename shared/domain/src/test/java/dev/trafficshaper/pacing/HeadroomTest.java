package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class HeadroomTest {

    private static final PacerSettings ON = PacerSettings.builder().targetUtilization(0.95).build();

    /** A headroom that has admitted {@code calls} calls at time 0. */
    private static Headroom withCalls(PacerSettings settings, int calls) {
        Headroom headroom = new Headroom(settings);
        for (int i = 0; i < calls; i++) {
            headroom.admitted(0);
        }
        return headroom;
    }

    @Test
    void forgivenessStepsOnlyWhereAStepOfItFreesAtLeastALiftStep() {
        // quota 600k a minute: a lift step is 6k, a forgiveness step an eighth of the open excess
        assertThat(Headroom.forgivingFrees(48_000, 600_000)).isTrue();
        assertThat(Headroom.forgivingFrees(47_999, 600_000)).as("calls mostly settled").isFalse();
        assertThat(Headroom.forgivingFrees(0, 600_000)).as("nothing open").isFalse();
    }

    @Test
    void startsStrictAndProbesOnlyAStepAfterTheBacklogBegan() {
        Headroom headroom = withCalls(ON, 200);

        headroom.backlogged(true, 1_000);
        assertThat(headroom.probing()).isFalse();
        headroom.backlogged(true, 10_999);
        assertThat(headroom.probing()).isFalse();
        headroom.backlogged(true, 11_000);
        assertThat(headroom.forgiveness()).isEqualTo(Headroom.FORGIVENESS_STEP);
        assertThat(headroom.lift()).isZero();
    }

    @Test
    void forgivesWhileTheWindowBindsAndLiftsTheTargetOtherwiseUpToTheCeiling() {
        Headroom headroom = withCalls(ON, 500);
        List<String> trace = new ArrayList<>();
        headroom.backlogged(true, 0);
        for (int step = 1; step <= 14; step++) {
            headroom.backlogged(step > 4, step * 10_000L);
            trace.add(String.format("%.3f/%.2f", headroom.forgiveness(), headroom.lift()));
        }

        assertThat(trace).containsExactly("0.000/0.01", "0.000/0.02", "0.000/0.03", "0.000/0.04",
                "0.125/0.04", "0.250/0.04", "0.375/0.04", "0.500/0.04", "0.625/0.04", "0.750/0.04",
                "0.875/0.04", "1.000/0.04", "1.000/0.05", "1.000/0.05");
    }

    @Test
    void aThrottleWhileProbingHalvesWhatWasLearntAndHoldsForTwiceTheStep() {
        Headroom headroom = withCalls(ON, 1_000);
        headroom.backlogged(true, 0);
        for (int step = 1; step <= 4; step++) {
            headroom.backlogged(true, step * 10_000L);
        }
        assertThat(headroom.forgiveness()).isEqualTo(0.5);

        assertThat(headroom.throttled(41_000)).as("the probe takes the blame").isTrue();
        assertThat(headroom.forgiveness()).isEqualTo(0.25);
        headroom.backlogged(true, 60_999);
        assertThat(headroom.forgiveness()).isEqualTo(0.25);
        headroom.backlogged(true, 61_000);
        assertThat(headroom.forgiveness()).isEqualTo(0.375);
    }

    /**
     * A step too high comes back as a few throttles at once: the calls in flight when the meter
     * refused. The first backs off; the next two of calls sent before it are the same answer and
     * change neither what was learnt nor the wait; a fourth says more than one step was wrong.
     */
    @Test
    void throttlesOfCallsSentBeforeTheBackOffAreItsAnswerUpToTwo() {
        Headroom headroom = withCalls(ON, 1_000);
        headroom.backlogged(true, 0);
        for (int step = 1; step <= 4; step++) {
            headroom.backlogged(true, step * 10_000L);
        }

        assertThat(headroom.throttled(40_600, 41_000)).isTrue();
        assertThat(headroom.forgiveness()).isEqualTo(0.25);
        assertThat(headroom.throttled(40_700, 41_000)).as("the same answer").isTrue();
        assertThat(headroom.throttled(40_900, 41_200)).as("the same answer").isTrue();
        assertThat(headroom.forgiveness()).isEqualTo(0.25);
        assertThat(headroom.probeThrottles()).as("each counts in the budget").isEqualTo(3);
        headroom.backlogged(true, 61_000);
        assertThat(headroom.forgiveness()).as("the wait doubled once").isEqualTo(0.375);

        assertThat(headroom.throttled(60_000, 61_500)).isTrue();
        assertThat(headroom.forgiveness()).as("a call sent after the back-off: a new answer").isEqualTo(0.1875);
        headroom.throttled(61_100, 61_600);
        headroom.throttled(61_200, 61_600);
        assertThat(headroom.forgiveness()).isEqualTo(0.1875);
        headroom.throttled(61_300, 61_700);
        assertThat(headroom.forgiveness()).as("a fourth of the bunch backs off again").isEqualTo(0.09375);
    }

    /** Probes to forgiveness {@code 0.25} and lift {@code 0.05} (the ceiling above a 0.95 target) by 80 s. */
    private static Headroom liftedAndForgiving() {
        return liftedAndForgiving(1_000);
    }

    /** The same, with {@code calls} calls in the budget's window. */
    private static Headroom liftedAndForgiving(int calls) {
        Headroom headroom = withCalls(ON, calls);
        headroom.backlogged(false, 0);
        for (int step = 1; step <= 8; step++) {
            headroom.backlogged(step > 6, step * 10_000L); // the sixth step tops the lift out at the ceiling
        }
        assertThat(headroom.lift()).isEqualTo(0.05, Offset.offset(1e-9));
        assertThat(headroom.forgiveness()).isEqualTo(0.25);
        return headroom;
    }

    /**
     * The lift never takes the strict window past the ceiling, so a call refused with it there had
     * room only by forgiveness: forgiveness goes, the lift and the wait stay, and the lift steps
     * first from then on, also while the window binds.
     */
    @Test
    void aRefusalOverTheStrictWindowWithdrawsForgivenessAloneAndTheLiftStepsFirstFromThen() {
        Headroom headroom = liftedAndForgiving();
        headroom.throttled(80_000); // a refusal below the ceiling: both halve, the wait doubles to 20 s
        assertThat(headroom.lift()).isEqualTo(0.025, Offset.offset(1e-9));
        assertThat(headroom.forgiveness()).isEqualTo(0.125);

        assertThat(headroom.throttled(90_000, Headroom.Refusal.OVER_STRICT_WINDOW, 90_500)).isTrue();
        assertThat(headroom.forgiveness()).isZero();
        assertThat(headroom.lift()).as("kept").isEqualTo(0.025, Offset.offset(1e-9));
        assertThat(headroom.throttled(90_100, Headroom.Refusal.OVER_STRICT_WINDOW, 90_600))
                .as("a call sent before the withdrawal: its answer").isTrue();
        assertThat(headroom.probeThrottles()).isEqualTo(3);

        List<String> trace = new ArrayList<>();
        for (long now = 110_500; now <= 230_500; now += 20_000) {
            headroom.backlogged(true, now);
            trace.add(String.format("%.3f/%.3f", headroom.forgiveness(), headroom.lift()));
        }
        assertThat(trace).as("the wait unchanged at 20 s; forgiveness once the lift is at the ceiling")
                .containsExactly("0.000/0.035", "0.000/0.045", "0.000/0.050", "0.125/0.050", "0.250/0.050",
                        "0.375/0.050", "0.500/0.050");
    }

    @Test
    void aSecondRefusalOverTheStrictWindowDoublesTheWaitAndARefusalWithoutForgivenessIsAnyOther() {
        Headroom headroom = liftedAndForgiving();
        headroom.throttled(85_000, Headroom.Refusal.OVER_STRICT_WINDOW, 85_000);
        headroom.backlogged(true, 95_000);
        assertThat(headroom.forgiveness()).as("the lift is at the ceiling: forgiveness steps").isEqualTo(0.125);

        headroom.throttled(100_000, Headroom.Refusal.OVER_STRICT_WINDOW, 100_000);
        assertThat(headroom.forgiveness()).isZero();
        headroom.backlogged(true, 119_999);
        assertThat(headroom.forgiveness()).isZero();
        headroom.backlogged(true, 120_000);
        assertThat(headroom.forgiveness()).as("a step 20 s on").isEqualTo(0.125);

        assertThat(headroom.throttled(120_500, Headroom.Refusal.OVER_STRICT_WINDOW, 121_000)).isTrue();
        assertThat(headroom.forgiveness()).isZero();
        double lift = headroom.lift();
        assertThat(headroom.throttled(122_000, Headroom.Refusal.OVER_STRICT_WINDOW, 122_000))
                .as("nothing forgiven to withdraw: a refusal like any other").isTrue();
        assertThat(headroom.lift()).isEqualTo(lift / 2);
    }

    /**
     * Only refusals of calls sent on the forgiveness withdrawn are its answer: one over the window
     * sent after it is any other refusal (the same answers of a later back-off, then a back-off),
     * and a withdrawal leaves an earlier back-off's same answers counted.
     */
    @Test
    void aWithdrawalAnswersOnlyTheCallsSentBeforeItAndLeavesTheSameAnswersCounted() {
        Headroom headroom = liftedAndForgiving();
        headroom.throttled(85_000, Headroom.Refusal.OVER_STRICT_WINDOW, 85_000);
        headroom.throttled(86_000, 86_000); // a back-off: the lift halves to 0.025
        headroom.throttled(85_500, Headroom.Refusal.OVER_STRICT_WINDOW, 86_100);
        headroom.throttled(85_600, Headroom.Refusal.OVER_STRICT_WINDOW, 86_200);
        assertThat(headroom.lift()).as("two same answers").isEqualTo(0.025, Offset.offset(1e-9));
        headroom.throttled(85_700, Headroom.Refusal.OVER_STRICT_WINDOW, 86_300);
        assertThat(headroom.lift()).as("a third backs off again").isEqualTo(0.0125, Offset.offset(1e-9));

        Headroom other = liftedAndForgiving();
        other.throttled(90_000, 90_000); // f 0.125, l 0.025
        other.throttled(89_000, 90_100);
        other.throttled(89_100, 90_200);
        other.throttled(89_200, Headroom.Refusal.OVER_STRICT_WINDOW, 90_300); // withdraws f
        assertThat(other.forgiveness()).isZero();
        other.throttled(89_300, 90_400);
        assertThat(other.lift()).as("the back-off's third same answer: half again").isEqualTo(0.0125,
                Offset.offset(1e-9));
    }

    /** 200 calls leave the budget room for one probe throttle: a second absorbed ends the probe. */
    @Test
    void aThrottleAbsorbedThatLeavesTheBudgetWithoutRoomEndsTheProbe() {
        Headroom headroom = liftedAndForgiving(200);
        assertThat(headroom.throttled(90_000, Headroom.Refusal.OVER_STRICT_WINDOW, 90_000)).isTrue();
        assertThat(headroom.lift()).isEqualTo(0.05, Offset.offset(1e-9));

        assertThat(headroom.throttled(89_500, Headroom.Refusal.OVER_STRICT_WINDOW, 90_100))
                .as("the withdrawal's answer, still the probe's").isTrue();
        assertThat(headroom.probing()).as("out of budget: the strict bound").isFalse();

        Headroom sameAnswer = liftedAndForgiving(200);
        sameAnswer.throttled(90_000, 90_000);
        sameAnswer.throttled(89_500, 90_100);
        assertThat(sameAnswer.probing()).as("a same answer that fills the budget too").isFalse();
    }

    /**
     * At the ceiling the meter's edge is the quota itself, where the step below went through: one
     * step back, not half the lift. A bunch past its same answers says a tighter meter: half.
     */
    @Test
    void aRefusalAtTheCeilingStepsTheLiftBackOnceAndABunchPastItsSameAnswersHalvesIt() {
        Headroom headroom = liftedAndForgiving();

        assertThat(headroom.throttled(79_900, Headroom.Refusal.AT_CEILING, 80_000)).isTrue();
        assertThat(headroom.lift()).isEqualTo(0.04, Offset.offset(1e-9));
        assertThat(headroom.forgiveness()).as("halved as for any refusal").isEqualTo(0.125);
        headroom.throttled(79_950, Headroom.Refusal.AT_CEILING, 80_100);
        headroom.throttled(79_960, Headroom.Refusal.AT_CEILING, 80_100);
        assertThat(headroom.lift()).as("the same answer").isEqualTo(0.04, Offset.offset(1e-9));
        headroom.throttled(79_970, Headroom.Refusal.AT_CEILING, 80_200);
        assertThat(headroom.lift()).as("a fourth of the bunch").isEqualTo(0.02, Offset.offset(1e-9));

        headroom.backlogged(false, 119_999);
        assertThat(headroom.lift()).isEqualTo(0.02, Offset.offset(1e-9));
        headroom.backlogged(false, 120_200);
        assertThat(headroom.lift()).as("the wait doubled twice: 40 s").isEqualTo(0.03,
                Offset.offset(1e-9));
    }

    @Test
    void aRefusedForgivenessIsHandedOver() {
        Headroom headroom = liftedAndForgiving();
        headroom.throttled(85_000, Headroom.Refusal.OVER_STRICT_WINDOW, 85_000);
        headroom.throttled(86_000, 86_000); // halves the lift and doubles the wait: 20 s
        assertThat(headroom.export(90_000).forgivenessRefused()).isTrue();

        Headroom successor = handedOff(headroom, 90_000);
        successor.backlogged(true, 106_000);
        assertThat(successor.forgiveness()).as("the lift first, though the window binds").isZero();
        assertThat(successor.lift()).isEqualTo(0.035, Offset.offset(1e-9));
        assertThat(withCalls(ON, 10).export(1_000).forgivenessRefused()).isFalse();
    }

    @Test
    void eachProbeThrottleDoublesTheWaitBeforeTheNextStepUntilTenMinutesWithoutOneResetIt() {
        Headroom headroom = withCalls(ON, 1_000);
        headroom.backlogged(true, 0);
        headroom.backlogged(true, 10_000);
        List<Long> waits = new ArrayList<>();
        long now = 10_000;
        for (int throttle = 0; throttle < 8 && now < 10_000_000; throttle++) {
            headroom.throttled(now);
            long throttledAt = now;
            double before = headroom.forgiveness();
            while (headroom.forgiveness() == before && now - throttledAt < 1_000_000) {
                now += 1_000;
                admitSecondsWorth(headroom, now);
                headroom.backlogged(true, now);
            }
            waits.add(now - throttledAt);
        }
        // At the ten-minute cap the budget's window no longer holds the last probe throttle, so the
        // doubling starts again from one step.
        assertThat(waits).containsExactly(20_000L, 40_000L, 80_000L, 160_000L, 320_000L, 600_000L, 20_000L,
                40_000L);
    }

    /** A successor's headroom resumed from {@code predecessor} as a handoff at {@code nowMillis} would. */
    private static Headroom handedOff(Headroom predecessor, long nowMillis) {
        Headroom successor = new Headroom(ON);
        successor.restore(predecessor.forgiveness(), predecessor.lift());
        successor.restoreBudget(predecessor.export(nowMillis), nowMillis);
        return successor;
    }

    @Test
    void handoffsEveryMinuteSpendTheBudgetOneDrainerWouldHaveAndNoMore() {
        Headroom headroom = withCalls(ON, 300); // room for 3 throttles in 10 minutes
        headroom.backlogged(true, 0);
        long now = 10_000;
        int throttles = 0;
        while (now < 600_000) {
            if (now % 60_000 == 0) {
                headroom = handedOff(headroom, now); // a handoff every minute
            }
            headroom.backlogged(true, now);
            if (headroom.probing() && headroom.throttled(now + 1)) {
                throttles++;
            }
            now += 10_000;
        }

        assertThat(throttles).as("the budget of the 300 calls, however many drainers shared it").isEqualTo(3);
        assertThat(headroom.probing()).isFalse();
    }

    @Test
    void aProbeThrottleJustBeforeAHandoffStillCountsAgainstTheSuccessorsCalls() {
        Headroom headroom = withCalls(ON, 200); // room for two throttles while they count
        headroom.backlogged(true, 0);
        headroom.backlogged(true, 10_000);
        assertThat(headroom.throttled(590_000)).isTrue();

        Headroom successor = handedOff(headroom, 595_000);
        for (int i = 0; i < 100; i++) {
            successor.admitted(596_000);
        }

        // The 200 calls have left the budget's window; the last 10 minutes hold the successor's 100
        // calls and the predecessor's throttle: a second one would be two in a hundred. A fresh budget would have taken it as the probe's.
        assertThat(successor.probing()).isTrue();
        assertThat(successor.throttled(601_000)).as("the target answers it").isFalse();
        assertThat(successor.probing()).isFalse();
    }

    @Test
    void aSuccessorWaitsOutTheDoubledStepAndTheRestOfTheCurrentOne() {
        Headroom headroom = withCalls(ON, 1_000);
        headroom.backlogged(true, 0);
        headroom.backlogged(true, 10_000);
        headroom.throttled(10_000); // the step's wait doubles to 20 s
        headroom.throttled(20_000); // and to 40 s
        double learnt = Headroom.FORGIVENESS_STEP / 4;
        assertThat(headroom.forgiveness()).isEqualTo(learnt);

        Headroom successor = handedOff(headroom, 30_000);
        successor.backlogged(true, 59_999);
        assertThat(successor.forgiveness()).as("40 s after the last change, not one step after the handoff")
                .isEqualTo(learnt);
        successor.backlogged(true, 60_000);
        assertThat(successor.forgiveness()).isEqualTo(learnt + Headroom.FORGIVENESS_STEP);
    }

    @Test
    void theBudgetTravelsAsPerMinuteCountsOfTheLastTenMinutes() {
        Headroom headroom = new Headroom(ON);
        for (long at = 0; at < 700_000; at += 1_000) {
            headroom.admitted(at); // one call a second for 700 s
        }
        headroom.backlogged(true, 0);
        headroom.backlogged(true, 10_000);
        headroom.throttled(650_500);
        headroom.throttled(655_000);

        PacerState.HeadroomState state = headroom.export(700_000);

        // Calls of the minute that began 10 minutes or more before the capture are dropped (their
        // credit is lost, never stretched); the rest are dated at their minute's start.
        assertThat(state.minutes()).extracting(PacerState.BudgetMinute::startMillis)
                .containsExactly(120_000L, 180_000L, 240_000L, 300_000L, 360_000L, 420_000L, 480_000L, 540_000L,
                        600_000L, 660_000L);
        assertThat(state.minutes().get(0).calls()).isEqualTo(60);
        assertThat(state.minutes().get(9)).isEqualTo(new PacerState.BudgetMinute(660_000, 40, 0, PacerState.NEVER));
        assertThat(state.minutes().get(8)).isEqualTo(new PacerState.BudgetMinute(600_000, 60, 2, 655_000));
        assertThat(state.stepMillis()).isEqualTo(4 * Headroom.STEP_MILLIS);
        assertThat(state.lastChangeAtMillis()).isEqualTo(655_000);
    }

    @Test
    void aFreshHeadroomExportsNothingLearnt() {
        assertThat(new Headroom(ON).export(1_000_000)).isEqualTo(PacerState.HeadroomState.NONE);
    }

    /** Keeps the budget's window full of calls: two a second. */
    private static void admitSecondsWorth(Headroom headroom, long nowMillis) {
        headroom.admitted(nowMillis);
        headroom.admitted(nowMillis);
    }

    @Test
    void theBanksThrottlesFillTheBudgetButLeaveWhatWasLearnt() {
        Headroom headroom = withCalls(ON, 200); // room for 2 throttles in 10 minutes
        headroom.backlogged(false, 0);
        headroom.backlogged(false, 10_000);
        headroom.backlogged(false, 20_000);
        assertThat(headroom.lift()).isEqualTo(0.02);

        headroom.bookAnsweredThrottle(21_000);
        headroom.bookAnsweredThrottle(21_000);

        assertThat(headroom.budgetAllows(21_000)).as("the bank's throttles count in the budget").isFalse();
        assertThat(headroom.lift()).as("and leave the lift alone").isEqualTo(0.02);
        headroom.bookThrottle(22_000);
        assertThat(headroom.lift()).as("another learner's throttle past the budget ends the probe").isZero();
    }

    @Test
    void aThrottleWhileStrictIsLeftToTheTarget() {
        Headroom headroom = withCalls(ON, 1_000);

        assertThat(headroom.throttled(5_000)).isFalse();
        assertThat(headroom.probeThrottles()).isZero();
    }

    @Test
    void withoutRoomInTheBudgetOfExtraCallsItFallsBackToStrictAndWaits() {
        Headroom headroom = withCalls(ON, 300); // room for 3 throttles in 10 minutes
        headroom.backlogged(true, 0);
        long now = 10_000;
        int throttles = 0;
        while (now < 600_000) {
            headroom.backlogged(true, now);
            if (headroom.probing()) {
                headroom.throttled(now + 1);
                throttles++;
            }
            now += 10_000;
        }

        assertThat(throttles).isEqualTo(3);
        assertThat(headroom.probing()).isFalse();
    }

    /** The budget is the model's setting: 2% of the same 300 calls holds twice the throttles. */
    @Test
    void aLargerBudgetHoldsProportionallyMoreProbeThrottles() {
        for (double budget : new double[] {0.01, 0.02}) {
            Headroom headroom = withCalls(ON.toBuilder().headroomBudget(budget).build(), 300);
            headroom.backlogged(true, 0);
            int throttles = 0;
            for (long now = 10_000; now < 600_000; now += 10_000) {
                headroom.backlogged(true, now);
                if (headroom.probing()) {
                    headroom.throttled(now + 1);
                    throttles++;
                }
            }
            assertThat(throttles).as("budget %s of 300 calls", budget).isEqualTo((int) Math.round(budget * 300));
            assertThat(headroom.budgetAllows(595_000)).as("full while the 300 calls are in its window").isFalse();
        }
    }

    @Test
    void aThrottleThatFindsTheBudgetsCallsAgedOutIsNotTheProbesAndEndsTheProbe() {
        Headroom headroom = withCalls(ON, 100); // room for exactly one throttle while they count
        headroom.backlogged(true, 0);
        headroom.backlogged(true, 10_000);
        assertThat(headroom.probing()).isTrue();

        // Ten minutes on, the hundred calls have left the budget's window: nothing is left to spend.
        assertThat(headroom.throttled(610_000)).as("the target answers it").isFalse();

        assertThat(headroom.probing()).isFalse();
        assertThat(headroom.probeThrottles()).isZero();
    }

    @Test
    void switchedOffItNeverProbesAndIgnoresALearntState() {
        Headroom headroom = withCalls(ON.toBuilder().headroom(false).build(), 10_000);
        headroom.restore(1.0, 0.05);
        for (long at = 0; at < 600_000; at += 10_000) {
            headroom.backlogged(true, at);
        }

        assertThat(headroom.probing()).isFalse();
    }

    @Test
    void theLiftStopsAtTheCeiling() {
        Headroom headroom = withCalls(ON.toBuilder().headroomCeiling(0.97).build(), 1_000);
        headroom.backlogged(false, 0);
        for (int step = 1; step <= 10; step++) {
            headroom.backlogged(false, step * 10_000L);
        }

        assertThat(headroom.lift()).isCloseTo(0.97 - 0.95, Offset.offset(1e-12));
        assertThat(headroom.forgiveness()).as("once the lift is at the ceiling, the steps go to forgiveness")
                .isGreaterThanOrEqualTo(0.875);
    }

    /**
     * Calls reserving 10,000 tokens that use 1,000 and stay open 20 s: the strict bound holds every
     * open one at 10,000, so the window, not the spacing, holds the queue back. With headroom the
     * pacer learns to count open calls nearer what they use and admits several times as many.
     */
    @Test
    void onTheSameWorkloadTheHeadroomAdmitsMoreThanTheStrictBound() {
        Quota quota = Quota.tokensPerMinute(600_000);
        int strict = admittedInTenMinutes(Pacer.create(quota, ON.toBuilder().headroom(false).build()));
        int learnt = admittedInTenMinutes(Pacer.create(quota, ON));

        // Strict: 20 s of open calls at 10,000 and a minute of settled ones at 1,000 share 570,000.
        assertThat(strict).isBetween(1_300, 1_450);
        assertThat(learnt).isGreaterThan(2 * strict);
    }

    private static int admittedInTenMinutes(Pacer pacer) {
        List<long[]> open = new ArrayList<>();
        List<Admission> admissions = new ArrayList<>();
        long now = 0;
        int count = 0;
        while (now < 600_000) {
            for (int i = open.size() - 1; i >= 0; i--) {
                if (open.get(i)[0] <= now) {
                    pacer.settle(admissions.remove(i), TokenUsage.of(500, 500), now);
                    open.remove(i);
                }
            }
            Candidate next = new Candidate("r" + count, Lane.BULK, "t", TokenUsage.of(500, 9_500), now, Long.MAX_VALUE);
            Decision decision = pacer.decide(List.of(next), now);
            if (decision instanceof Decision.Admit admit) {
                admissions.add(admit.admission());
                open.add(new long[] {now + 20_000});
                count++;
            } else {
                long wake = ((Decision.WaitUntil) decision).atMillis();
                long settleAt = open.stream().mapToLong(o -> o[0]).min().orElse(Long.MAX_VALUE);
                now = Math.max(now + 1, Math.min(wake, settleAt));
            }
        }
        return count;
    }
}
