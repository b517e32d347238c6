package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BankedCapacityTest {

    /** 600k TPM at target 1.0: a call of 10,000 tokens every second, 60 a minute. */
    private static final Quota QUOTA = Quota.tokensPerMinute(600_000);
    private static final PacerSettings HEADROOM = PacerSettings.builder()
            .targetUtilization(1.0).minimumTarget(0.5).slowStartMillis(0).build();

    /** When the 100th call leaves headroom's budget room for one throttle (1% of the calls): the even rate's 99th second. */
    private static final long ROOM_AT = 99_000;

    private int sequence;

    private Candidate call() {
        return new Candidate("r" + sequence++, Lane.BULK, "t", TokenUsage.of(10_000, 0), 0, Long.MAX_VALUE);
    }

    /** Admission times over {@code [from, until)} of a queue that never empties; each settles as reserved at once. */
    private List<Long> drain(Pacer pacer, long from, long until) {
        List<Long> times = new ArrayList<>();
        long now = from;
        while (now < until) {
            Decision decision = pacer.decide(List.of(call()), now);
            if (decision instanceof Decision.Admit admit) {
                times.add(now);
                pacer.settle(admit.admission(), TokenUsage.of(10_000, 0), now);
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        return times;
    }

    /** The most calls in any 60 s window that starts before {@code until}. */
    private static long mostInAnyMinuteBefore(List<Long> times, long until) {
        long most = 0;
        for (long start : times) {
            if (start < until) {
                most = Math.max(most, times.stream().filter(t -> t >= start && t < start + 60_000).count());
            }
        }
        return most;
    }

    /** Admits {@code calls} from a full queue from time 0, each settling as reserved at once. */
    private void drainCalls(Pacer pacer, int calls) {
        long now = 0;
        int admitted = 0;
        while (admitted < calls) {
            Decision decision = pacer.decide(List.of(call()), now);
            if (decision instanceof Decision.Admit admit) {
                admitted++;
                pacer.settle(admit.admission(), TokenUsage.of(10_000, 0), now);
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
    }

    private Admission admissionAt(long atMillis) {
        return new Admission(call(), dev.trafficshaper.quota.Charge.NONE, 0.0, atMillis,
                new SlidingWindowLedger.Entry[0], new long[0]);
    }

    private static long countBefore(List<Long> times, long until) {
        return times.stream().filter(t -> t < until).count();
    }

    @Test
    void afterAMinuteWithNothingChargedTheBankQuickensTheStartWithinTheWindowUntilTheBudgetHasRoom() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);

        List<Long> times = drain(pacer, 0, 300_000);

        assertThat(countBefore(times, 30_000)).as("the empty window, at twice the even rate").isEqualTo(60);
        assertThat(mostInAnyMinuteBefore(times.subList(0, 100), Long.MAX_VALUE))
                .as("nothing beyond the window before 100 calls leave the budget room for a probe").isLessThanOrEqualTo(60);
        for (int i = 2; i < 100; i++) {
            assertThat(times.get(i) - times.get(i - 2)).as("two calls at most per second").isGreaterThanOrEqualTo(999);
        }
    }

    @Test
    void onceTheBudgetHasRoomABurstAfterAMinuteWithNothingChargedSpendsTheBankBeyondTheWindow() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        drain(pacer, 0, 300_000); // 300 calls in the budget's 10 minutes

        List<Long> burst = drain(pacer, 400_000, 520_000);

        assertThat(countBefore(burst, 460_000)).as("the window's 60 and the bank's 60").isBetween(119L, 120L);
        assertThat(burst.size() - countBefore(burst, 460_000)).as("then the window alone").isBetween(59L, 61L);
    }

    @Test
    void aBurstTooSmallForTheBudgetStartsQuickerButNeverPassesTheWindow() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        List<Candidate> queue = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            queue.add(call());
        }
        List<Long> times = new ArrayList<>();
        long now = 0;
        while (!queue.isEmpty()) {
            Decision decision = pacer.decide(List.of(queue.get(0)), now);
            if (decision instanceof Decision.Admit admit) {
                times.add(now);
                queue.remove(0);
                pacer.settle(admit.admission(), TokenUsage.of(10_000, 0), now);
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }

        assertThat(mostInAnyMinuteBefore(times, Long.MAX_VALUE)).as("every minute within the window: no meter refuses")
                .isLessThanOrEqualTo(60);
        assertThat(times.get(79)).as("sooner than the even rate's 79 s").isLessThan(79_000);
    }

    @Test
    void theStrictBoundNeverBanks() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM.toBuilder().headroom(false).build());

        assertThat(countBefore(drain(pacer, 0, 60_000), 60_000)).isEqualTo(60);
    }

    @Test
    void aBusyPacerStartsNoEpisode() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        drain(pacer, 0, 300_000);

        List<Long> sixth = drain(pacer, 300_000, 360_000);

        assertThat(sixth).as("the bank went in the second and third minutes").hasSizeBetween(59, 61);
    }

    @Test
    void aThrottleTheWindowWouldNotHaveTakenWithdrawsTheCreditAndHalvesTheBank() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        drain(pacer, 0, 300_000); // about 360 calls in the budget's 10 minutes: room for three throttles
        long start = 400_000; // a minute after the window emptied: the bank is armed again
        List<Admission> open = openUntilTheBankPays(pacer, start);

        pacer.throttled(open.get(open.size() - 1), open.get(open.size() - 1).admittedAtMillis());
        long now = open.get(open.size() - 1).admittedAtMillis();
        pacer.throttled(open.get(open.size() - 2), now + 10);

        // The window now counts the bank's calls: nothing more until the oldest leave it.
        Decision next = pacer.decide(List.of(call()), now + 20);
        assertThat(next).isInstanceOf(Decision.WaitUntil.class);
        assertThat(((Decision.WaitUntil) next).atMillis()).isGreaterThanOrEqualTo(start + 60_000);
        assertThat(pacer.snapshot(now + 20).target()).as("the bank answered both, not the target").isEqualTo(1.0);
    }

    @Test
    void everyAnswerToACallSentOnTheCreditIsTheBanksAndOneWithinTheWindowTheTargets() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        drainCalls(pacer, 190); // with the next 70, room for two throttles (the probe's and a follower's)
        long start = 400_000; // a minute after the window emptied: the bank is armed again
        List<Admission> open = openUntilTheBankPays(pacer, start);
        long now = open.get(open.size() - 1).admittedAtMillis();

        pacer.throttled(open.get(open.size() - 1), now);
        pacer.throttled(open.get(open.size() - 2), now + 10);
        pacer.throttled(open.get(open.size() - 3), now + 20);

        assertThat(pacer.snapshot(now + 20).target()).as("calls sent on the credit: the bank's answers").isEqualTo(1.0);
        assertThat(pacer.budgetedThrottles()).as("booked against the budget, as sent within it").isEqualTo(3);
        Admission inWindow = pacer.decide(List.of(call()), 600_000) instanceof Decision.Admit admit ? admit.admission() : null;
        assertThat(inWindow).isNotNull();
        pacer.throttled(inWindow, 600_010);
        assertThat(pacer.snapshot(600_010).target()).as("a call within the window: the target's").isLessThan(1.0);
    }

    /**
     * From {@code start}, 70 calls left open (the window holds 60 of them, the bank pays for the
     * rest); then all but the last three the bank paid for settle. Returns those three, oldest first.
     */
    private List<Admission> openUntilTheBankPays(Pacer pacer, long start) {
        long now = start;
        List<Admission> open = new ArrayList<>();
        while (open.size() < 70) {
            Decision decision = pacer.decide(List.of(call()), now);
            if (decision instanceof Decision.Admit admit) {
                open.add(admit.admission());
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        List<Admission> banked = new ArrayList<>(open.stream().filter(Admission::banked).toList());
        List<Admission> kept = banked.subList(banked.size() - 3, banked.size());
        assertThat(kept.get(2)).as("the last call is the bank's").isSameAs(open.get(69));
        for (Admission admission : open) {
            if (!kept.contains(admission)) {
                pacer.settle(admission, TokenUsage.of(10_000, 0), now);
            }
        }
        return kept;
    }

    @Test
    void theShareHalvesOnEachWithdrawalAndStopsBelowAnEighth() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        List<Double> shares = new ArrayList<>();
        long now = 0;
        for (int episode = 0; episode < 5; episode++) {
            bank.maybeStart(budgets, 1.0, now);
            bank.throttled(true, admissionAt(now), now);
            shares.add(bank.share());
            now += 200_000;
        }

        assertThat(shares).containsExactly(0.5, 0.25, 0.125, 0.0, 0.0);
    }

    @Test
    void aSuccessorMidEpisodeKeepsTheCreditAndWhatTheBankHasLeft() {
        long handoff = 430_000;
        long until = 520_000;
        int onePacer = drain(warmedUp(HEADROOM), 400_000, until).size();

        Pacer predecessor = warmedUp(HEADROOM);
        List<Long> times = new ArrayList<>(drain(predecessor, 400_000, handoff));
        Pacer successor = Pacer.resume(QUOTA, HEADROOM, predecessor.export(handoff), handoff);
        times.addAll(drain(successor, handoff, until));

        assertThat(onePacer).as("the window's 60 a minute and the bank's 60").isBetween(179, 181);
        assertThat(times.size()).as("as one pacer would").isBetween(onePacer - 6, onePacer);
    }

    /** 300 calls over five minutes, then nothing: room in the budget, and the window empty by 360 s. */
    private Pacer warmedUp(PacerSettings settings) {
        Pacer pacer = Pacer.create(QUOTA, settings);
        drain(pacer, 0, 300_000);
        return pacer;
    }


    @Test
    void whatTheBankLearntSurvivesAHandoff() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        bank.maybeStart(budgets, 1.0, 0);
        bank.throttled(true, admissionAt(0), 0);
        PacerState.BankState state = bank.export(budgets, new BunchingGuard(), 1_000);

        BankedCapacity successor = new BankedCapacity(HEADROOM);
        successor.restore(state, budgets, 1_000);

        assertThat(state.withdrawals()).isEqualTo(1);
        assertThat(successor.share()).isEqualTo(0.5);
        BankedCapacity strict = new BankedCapacity(HEADROOM.toBuilder().headroom(false).build());
        strict.restore(state, budgets, 1_000);
        assertThat(strict.share()).isZero();
    }
}
