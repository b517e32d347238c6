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

    private static long countBefore(List<Long> times, long until) {
        return times.stream().filter(t -> t < until).count();
    }

    @Test
    void afterAMinuteWithNothingChargedABurstSpendsTheBankOnTopOfTheWindowOnceTheBudgetHasRoomAndNoFaster() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);

        List<Long> times = drain(pacer, 0, 240_000);

        assertThat(countBefore(times, ROOM_AT)).as("the window's even calls until the 100th: no room for a throttle")
                .isEqualTo(99);
        assertThat(countBefore(times, ROOM_AT + 60_000) - 99).as("then a minute of the window's 60 and the bank's 60")
                .isEqualTo(120);
        for (int i = 2; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 2)).as("two calls at most per second").isGreaterThanOrEqualTo(999);
        }
        assertThat(countBefore(times, ROOM_AT + 120_000) - countBefore(times, ROOM_AT + 60_000))
                .as("the minute after: the window alone").isBetween(59L, 61L);
    }

    @Test
    void aBurstTooSmallForTheBudgetNeverSpendsTheBank() {
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

        for (int i = 0; i < times.size(); i++) {
            assertThat(times.get(i)).as("call %d at the even rate", i).isEqualTo(i * 1_000L);
        }
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
    void aBankThrottleTheBudgetHasNoRoomForIsTheTargetsToAnswer() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        drain(pacer, 0, ROOM_AT); // 99 calls: with the next 70, room for one throttle
        long start = 200_000;
        List<Admission> open = openUntilTheBankPays(pacer, start);
        long now = open.get(open.size() - 1).admittedAtMillis();

        pacer.throttled(open.get(open.size() - 1), now);
        assertThat(pacer.snapshot(now).target()).as("the first: the bank's, within the budget").isEqualTo(1.0);
        pacer.throttled(open.get(open.size() - 2), now + 10);
        assertThat(pacer.snapshot(now + 10).target()).as("the second: no room left, the target's").isLessThan(1.0);
    }

    /** From {@code start}, 70 calls left open: the window holds 60 of them, the bank pays for the rest. */
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
        assertThat(open.get(69).banked()).as("the last is the bank's").isTrue();
        for (Admission admission : open.subList(0, 68)) {
            pacer.settle(admission, TokenUsage.of(10_000, 0), now);
        }
        return open;
    }

    @Test
    void theShareHalvesOnEachWithdrawalAndStopsBelowAnEighth() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        List<Double> shares = new ArrayList<>();
        long now = 0;
        for (int episode = 0; episode < 5; episode++) {
            bank.maybeStart(budgets, 1.0, now);
            bank.throttled(true, true, now, now);
            shares.add(bank.share());
            now += 200_000;
        }

        assertThat(shares).containsExactly(0.5, 0.25, 0.125, 0.0, 0.0);
    }

    @Test
    void aSuccessorMidEpisodeKeepsTheCreditAndWhatTheBankHasLeft() {
        long handoff = ROOM_AT + 30_000;
        long until = ROOM_AT + 60_000;

        List<Long> banking = handedOff(HEADROOM, handoff, until);
        List<Long> strict = handedOff(HEADROOM.toBuilder().headroom(false).build(), handoff, until);

        assertThat(countBefore(banking, ROOM_AT)).as("before the budget's room, as the strict bound")
                .isEqualTo(countBefore(strict, ROOM_AT));
        assertThat(banking.size() - strict.size()).as("the bank's minute, in both drainers").isBetween(59, 60);
    }

    @Test
    void aSuccessorOfAnArmedBankWaitsForTheBudgetAndThenSpendsIt() {
        long handoff = 50_000;
        long until = ROOM_AT + 60_000;

        List<Long> banking = handedOff(HEADROOM, handoff, until);
        List<Long> strict = handedOff(HEADROOM.toBuilder().headroom(false).build(), handoff, until);

        assertThat(countBefore(banking, ROOM_AT)).as("before the budget's room, as the strict bound")
                .isEqualTo(countBefore(strict, ROOM_AT));
        assertThat(banking.size() - strict.size()).as("then about the bank's minute (its 60 s from the first call), armed before the handoff").isBetween(55, 60);
    }

    /** Admission times over {@code [0, until)}, a successor taking over at {@code handoff}. */
    private List<Long> handedOff(PacerSettings settings, long handoff, long until) {
        Pacer predecessor = Pacer.create(QUOTA, settings);
        List<Long> times = new ArrayList<>(drain(predecessor, 0, handoff));
        Pacer successor = Pacer.resume(QUOTA, settings, predecessor.export(handoff), handoff);
        times.addAll(drain(successor, handoff, until));
        return times;
    }

    @Test
    void whatTheBankLearntSurvivesAHandoff() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        bank.maybeStart(budgets, 1.0, 0);
        bank.throttled(true, true, 0, 0);
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
