package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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
    void afterAMinuteWithNothingChargedABurstSpendsTheBankOnTopOfTheWindowAndNoFaster() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);

        List<Long> times = drain(pacer, 0, 120_000);

        assertThat(countBefore(times, 60_000)).as("the first minute: the window's 60 and the bank's 60").isEqualTo(120);
        for (int i = 2; i < 120; i++) {
            assertThat(times.get(i) - times.get(i - 2)).as("two calls at most per second").isGreaterThanOrEqualTo(999);
        }
        assertThat(countBefore(times, 120_000) - 120).as("the second minute: the window alone").isBetween(59L, 61L);
    }

    /**
     * A burst 10 s before the clock minute turns, after an idle minute: the bank goes before the
     * turn (a fixed window would lose what is left of it there), at four times the even rate for
     * the ramp and then sixteen times, and never more than a bucket full at the burst would hold.
     */
    @Test
    void aBurstTenSecondsBeforeTheTurnSpendsTheBankBeforeItQuicklyWithinABucketFullAtItsStart() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);

        List<Long> times = drain(pacer, 50_000, 120_000);

        assertThat(countBefore(times, 52_000)).as("the ramp: the bank's 4 a second beside the window's 1")
                .isBetween(9L, 11L);
        assertThat(countBefore(times, 56_000)).as("the bank's minute spent within 6 s, where evenly 12 calls")
                .isGreaterThanOrEqualTo(60);
        for (int i = 0; i < times.size() && times.get(i) < 110_000; i++) {
            long bucket = 600_000 + 10_000 * (times.get(i) - 50_000) / 1_000; // full at the start, refilled
            assertThat((i + 1) * 10_000L).as("within what a bucket full at the burst holds, at %d", times.get(i))
                    .isLessThanOrEqualTo(bucket + 10_000);
        }
    }

    /** The same burst with headroom off: the strict bound, no bank, the window's even rate. */
    @Test
    void withHeadroomOffTheBurstBeforeTheTurnIsSpacedEvenly() {
        Pacer pacer = Pacer.create(QUOTA, PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0)
                .headroom(false).build());

        List<Long> times = drain(pacer, 50_000, 70_000);

        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).isGreaterThanOrEqualTo(999);
        }
    }

    /**
     * Once a call went quickly, the bank's calls stay within what a bucket full at the episode's
     * start holds: the window keeps spending its own minute beside the bank, and a bank spent up
     * front leaves a bucket no room for both.
     */
    @Test
    void afterAQuickCallTheBankPaysOnlyWithinTheEpisodesBucket() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        long[] call = {10_000};
        bank.maybeStart(budgets, 1.0, 50_000);
        for (int i = 0; i < 60; i++) {
            budgets[0].charge(call[0], call[0], 1.0, 50_000);
            bank.spend(call, 10_000 / 600_000.0, 1.0, budgets, 50_000);
        }

        assertThat(bank.episodeBucketFit(budgets, call, 50_500)).as("600k held, 605k refilled: 610k at 51 s")
                .isEqualTo(51_000);
        assertThat(bank.episodeBucketFit(budgets, call, 51_000)).as("610k refilled").isEqualTo(51_000);
        assertThat(bank.episodeBucketFit(budgets, new long[] {700_000}, 51_000)).as("not within the episode")
                .isEqualTo(Long.MAX_VALUE);

        BankedCapacity even = new BankedCapacity(HEADROOM);
        DimensionBudget[] evenBudgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        even.maybeStart(evenBudgets, 1.0, 0);
        evenBudgets[0].charge(600_000, 600_000, 1.0, 0);
        even.spend(new long[] {600_000}, 1.0, 1.0, evenBudgets, 0);
        assertThat(even.episodeBucketFit(evenBudgets, call, 500)).as("an even episode: the window's bound alone")
                .isEqualTo(500);
    }

    /**
     * A call the bank paid for comes back throttled after the target has fallen (throttles of the
     * window's own calls came first) and with the window full: it is the bank's evidence all the
     * same, though the credit would not cover it at the fallen target either, so the credit is
     * withdrawn, instead of the bank paying on while every call it sends is refused.
     */
    @Test
    void aThrottledCallTheBankPaidForWithdrawsItsCreditEvenAfterTheTargetFell() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        Admission banked = null;
        int cuts = 0;
        double fallen = 1.0;
        long now = 0;
        while (banked == null) {
            Decision decision = pacer.decide(List.of(call()), now);
            if (decision instanceof Decision.Admit admit) {
                Admission admission = admit.admission();
                if (cuts < 4 && !admission.banked() && now > 5_000 + cuts * 2_000L) {
                    pacer.throttled(admission, now); // the window had room: the target's to answer
                    cuts++;
                    fallen = pacer.snapshot(now).target();
                } else if (admission.banked() && now > 50_000) {
                    banked = admission;
                } else {
                    pacer.settle(admission, TokenUsage.of(10_000, 0), now);
                }
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }

        pacer.throttled(banked, now + 1_500);

        assertThat(fallen).as("the window's own calls were the target's to answer").isLessThan(0.6);
        assertThat(pacer.snapshot(now + 1_500).target()).as("the bank's call is not")
                .isGreaterThanOrEqualTo(fallen);
        assertThat(pacer.export(now + 1_500).bank().withdrawals()).isEqualTo(1);
    }

    @Test
    void theStrictBoundNeverBanks() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM.toBuilder().headroom(false).build());

        assertThat(countBefore(drain(pacer, 0, 60_000), 60_000)).isEqualTo(60);
    }

    @Test
    void aBusyPacerStartsNoEpisode() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        drain(pacer, 0, 120_000);

        List<Long> third = drain(pacer, 120_000, 180_000);

        assertThat(third).hasSizeBetween(59, 61);
    }

    @Test
    void aThrottleTheWindowWouldNotHaveTakenWithdrawsTheCreditAndHalvesTheBank() {
        Pacer pacer = Pacer.create(QUOTA, HEADROOM);
        long now = 0;
        List<Admission> open = new ArrayList<>();
        // Run until the window alone is full: from then on every call is the bank's.
        while (open.size() < 70) {
            Decision decision = pacer.decide(List.of(call()), now);
            if (decision instanceof Decision.Admit admit) {
                open.add(admit.admission());
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        Admission banked = open.get(open.size() - 1);
        Admission alsoBanked = open.get(open.size() - 2);
        for (Admission admission : open.subList(0, open.size() - 2)) {
            pacer.settle(admission, TokenUsage.of(10_000, 0), now);
        }

        pacer.throttled(banked, now);
        pacer.throttled(alsoBanked, now + 10);

        // The window now counts the bank's calls: nothing more until the oldest leave it.
        Decision next = pacer.decide(List.of(call()), now + 20);
        assertThat(next).isInstanceOf(Decision.WaitUntil.class);
        assertThat(((Decision.WaitUntil) next).atMillis()).isGreaterThanOrEqualTo(60_000);
        assertThat(pacer.snapshot(now + 20).target()).as("the bank answered it, not the target").isEqualTo(1.0);
        assertThat(pacer.export(now + 20).headroomBudget().minutes())
                .as("both booked in headroom's budget: extra calls like any probe's")
                .singleElement().satisfies(minute -> assertThat(minute.throttles()).isEqualTo(2));
    }

    /** The meter charges a settled call what it used, so the bank gets the rest back while its episode lasts. */
    @Test
    void whatABankedCallDidNotUseIsTheBanksAgainWithinTheEpisode() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        bank.maybeStart(budgets, 1.0, 0); // a bank of 600k
        long[] call = {100_000};
        for (int i = 0; i < 6; i++) {
            bank.spend(call, 0.01, 1.0, budgets, i * 1_000L);
        }
        assertThat(bank.slotFor(call, 10_000)).as("spent").isEqualTo(Long.MAX_VALUE);

        bank.settled(new long[] {60_000}, 20_000);
        assertThat(bank.slotFor(call, 20_000)).as("60k back: not a call yet").isEqualTo(Long.MAX_VALUE);
        bank.settled(new long[] {40_000}, 21_000);
        assertThat(bank.slotFor(call, 21_000)).as("100k back").isEqualTo(21_000);
        assertThat(bank.banking(21_000)).isTrue();

        bank.settled(new long[] {-30_000}, 22_000); // read more than it reserved: the meter took it from the bank
        assertThat(bank.slotFor(call, 22_000)).isEqualTo(Long.MAX_VALUE);
        bank.settled(new long[] {500_000}, 60_000);
        assertThat(bank.slotFor(call, 60_000)).as("the episode is over").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theShareHalvesOnEachWithdrawalAndStopsBelowAnEighth() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        List<Double> shares = new ArrayList<>();
        long now = 0;
        for (int episode = 0; episode < 5; episode++) {
            bank.maybeStart(budgets, 1.0, now);
            bank.throttled(true, now, now);
            shares.add(bank.share());
            now += 200_000;
        }

        assertThat(shares).containsExactly(0.5, 0.25, 0.125, 0.0, 0.0);
    }

    @Test
    void aSuccessorMidEpisodeKeepsTheCreditAndWhatTheBankHasLeft() {
        Pacer predecessor = Pacer.create(QUOTA, HEADROOM);
        List<Long> first = drain(predecessor, 0, 30_000);
        Pacer successor = Pacer.resume(QUOTA, HEADROOM, predecessor.export(30_000), 30_000);

        List<Long> rest = drain(successor, 30_000, 60_000);

        assertThat(first.size() + rest.size()).as("as one pacer would: the window's 60 and the bank's 60")
                .isBetween(119, 120);
    }

    @Test
    void whatTheBankLearntSurvivesAHandoff() {
        BankedCapacity bank = new BankedCapacity(HEADROOM);
        DimensionBudget[] budgets = {new DimensionBudget(QuotaDimension.TOKENS, 600_000)};
        bank.maybeStart(budgets, 1.0, 0);
        bank.throttled(true, 0, 0);
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
