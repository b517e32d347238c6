package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The budget of extra calls holds for the whole pacer, not only for {@link Headroom} alone: over
 * random bursts separated by idle minutes (so the bank is armed again and again), against a meter
 * that throttles a random share of the calls, with handoffs at random points, every throttle the
 * pacer takes as an extra call (the probe's or the refunding bucket's, see
 * {@link Pacer#budgetedThrottles}) was sent while the 10 minutes before it left room for one more
 * within the model's budget of their calls ({@link PacerSettings#headroomBudget}: the default
 * {@value Headroom#BUDGET_SHARE}, 2%, 5% or the largest accepted, 10%), or finds that room when it
 * comes back. The
 * pacer decides within the budget; the answers to calls already in flight when the first refusal
 * comes back (a few, at the rate the probe sent them) are counted, not undone. Every other
 * throttle is the target's to answer, or the bank's ({@link BankedCapacity}), whose probe at a
 * burst's start is booked in the budget but not held to it (docs/headroom.md, "Banked capacity").
 */
class PacerBudgetPropertiesTest {

    private static final Quota QUOTA = Quota.tokensPerMinute(600_000);
    private static final PacerSettings ON = PacerSettings.builder().targetUtilization(0.95).slowStartMillis(0).build();

    record Burst(long idleMillis, int calls) {
    }

    /**
     * The meter throttles nothing in the first {@code calmMillis} of the first burst, so the bank
     * and the bucket model's proof ({@link RefundingBucket}) may form; {@code longGenerations}:
     * calls reserve 16,000 output tokens, use 3,000 and take a minute, so the model pays for calls
     * the window holds back.
     */
    record Run(List<Burst> bursts, double throttleShare, long seed, int handoffEvery, long calmMillis,
            boolean longGenerations, double budget) {
    }

    private record Open(long atMillis, Admission admission, boolean throttled) {
    }

    @Property(tries = 80)
    void extraCallsNeverExceedTheBudgetOfTheTenMinutesBeforeThem(@ForAll("runs") Run run) {
        Random random = new Random(run.seed());
        PacerSettings settings = ON.toBuilder().headroomBudget(run.budget()).build();
        Pacer pacer = Pacer.create(QUOTA, settings);
        long budgetedBefore = 0;
        List<Long> admissions = new ArrayList<>();
        List<Long> budgeted = new ArrayList<>();
        PriorityQueue<Open> open = new PriorityQueue<>(Comparator.comparingLong(Open::atMillis));
        List<Candidate> queue = new ArrayList<>();
        int sequence = 0;
        long now = 0;
        for (Burst burst : run.bursts()) {
            now += burst.idleMillis();
            for (int i = 0; i < burst.calls(); i++) {
                TokenUsage expected = TokenUsage.of(4_000, run.longGenerations() ? 16_000 : 1_000);
                queue.add(new Candidate("r" + sequence++, Lane.BULK, "t", expected, now, Long.MAX_VALUE));
            }
            while (!queue.isEmpty() || !open.isEmpty()) {
                Decision decision = queue.isEmpty() ? new Decision.Idle() : pacer.decide(List.of(queue.get(0)), now);
                if (decision instanceof Decision.Admit admit) {
                    queue.remove(0);
                    admissions.add(now);
                    boolean throttled = random.nextDouble() < run.throttleShare()
                            && now >= run.bursts().get(0).idleMillis() + run.calmMillis();
                    long latency = run.longGenerations()
                            ? 60_000 + random.nextInt(5_000)
                            : 2_000 + random.nextInt(20_000);
                    open.add(new Open(now + (throttled ? 60 : latency), admit.admission(), throttled));
                    if (admissions.size() % run.handoffEvery() == 0) {
                        budgetedBefore += pacer.budgetedThrottles();
                        pacer = Pacer.resume(QUOTA, settings, pacer.export(now), now);
                    }
                    continue;
                }
                long wake = decision instanceof Decision.WaitUntil wait ? wait.atMillis() : Long.MAX_VALUE;
                if (!open.isEmpty() && open.peek().atMillis() <= wake) {
                    Open done = open.poll();
                    now = Math.max(now, done.atMillis());
                    long before = pacer.budgetedThrottles();
                    if (done.throttled()) {
                        pacer.throttled(done.admission(), now);
                        queue.add(0, done.admission().candidate());
                    } else {
                        long generated = run.longGenerations() ? 3_000 : 300;
                        pacer.settle(done.admission(), TokenUsage.of(4_000, generated), now);
                    }
                    if (pacer.budgetedThrottles() > before) {
                        long sent = done.admission().admittedAtMillis();
                        long callsThen = countBetween(admissions, sent - Headroom.BUDGET_WINDOW_MILLIS, sent);
                        long extraThen = countBetween(budgeted, sent - Headroom.BUDGET_WINDOW_MILLIS, sent);
                        budgeted.add(now);
                        long calls = countSince(admissions, now - Headroom.BUDGET_WINDOW_MILLIS);
                        long extra = countSince(budgeted, now - Headroom.BUDGET_WINDOW_MILLIS);
                        boolean roomWhenSent = extraThen + 1 <= Math.floor(run.budget() * callsThen);
                        boolean roomWhenAnswered = extra <= Math.floor(run.budget() * calls);
                        assertThat(roomWhenSent || roomWhenAnswered)
                                .as("an extra call answered at %d ms (sent at %d ms: %d extra in %d calls before it;"
                                        + " answered: %d extra in %d calls)", now, sent, extraThen, callsThen, extra, calls)
                                .isTrue();
                    }
                } else {
                    now = wake;
                }
            }
        }
        assertThat(budgetedBefore + pacer.budgetedThrottles()).isEqualTo(budgeted.size());
    }

    /** Those in {@code (after, until]}. */
    private static long countBetween(List<Long> times, long after, long until) {
        return times.stream().filter(t -> t > after && t <= until).count();
    }

    /** Exclusive of the start, as the budget's window is. */
    private static long countSince(List<Long> times, long after) {
        return times.stream().filter(t -> t > after).count();
    }

    @Provide
    Arbitrary<Run> runs() {
        Arbitrary<Burst> bursts = Combinators.combine(
                Arbitraries.longs().between(0, 400_000), Arbitraries.integers().between(1, 400)).as(Burst::new);
        return Combinators.combine(
                bursts.list().ofMinSize(1).ofMaxSize(6),
                Arbitraries.doubles().between(0.0, 0.3),
                Arbitraries.longs(),
                Arbitraries.integers().between(20, 2_000),
                Arbitraries.longs().between(0, 180_000),
                Arbitraries.of(false, true),
                Arbitraries.of(Headroom.BUDGET_SHARE, 0.02, 0.05, PacerSettings.MOST_HEADROOM_BUDGET)).as(Run::new);
    }
}
