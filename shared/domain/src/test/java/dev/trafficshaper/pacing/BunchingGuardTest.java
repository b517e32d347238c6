package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BunchingGuardTest {

    /** A call of a sixtieth of the minute's quota: at target 1.0 the even rate is one a second. */
    private static final double SIXTIETH = 1.0 / 60;

    /** A guard that has seen {@code calls} calls of {@code share} started at {@code atMillis}. */
    private static BunchingGuard withCalls(int calls, double share, long atMillis) {
        BunchingGuard guard = new BunchingGuard();
        for (int i = 0; i < calls; i++) {
            guard.admitted(share, 1.0, atMillis);
        }
        return guard;
    }

    @Test
    void isOffUntilABunchedThrottleAndThenLetsEveryCallGoAtOnce() {
        BunchingGuard guard = withCalls(10, SIXTIETH, 0);

        assertThat(guard.factor(0)).isInfinite();
        assertThat(guard.nextSlot(0)).isZero();
    }

    @Test
    void aThrottleWithTheLastSecondSpreadEvenlyIsNotTheGuards() {
        BunchingGuard guard = new BunchingGuard();
        for (long at = 0; at <= 10_000; at += 1_000) {
            guard.admitted(SIXTIETH, 1.0, at);
        }

        assertThat(guard.throttled(1.0, 10_000, 10_100)).isFalse();
        assertThat(guard.factor(10_100)).isInfinite();
        assertThat(guard.throttles()).isZero();
    }

    @Test
    void aBunchedThrottleCapsReservationsJustBelowTheRateThatWasThrottled() {
        BunchingGuard guard = withCalls(4, SIXTIETH, 0);

        assertThat(guard.throttled(1.0, 0, 100)).isTrue();
        assertThat(guard.factor(100)).isCloseTo(4 * BunchingGuard.BACKOFF, within(1e-9));
        // Each call of a sixtieth now holds the next back by 1 s ÷ B.
        guard.admitted(SIXTIETH, 1.0, 100);
        long interval = Math.round(1_000 / (4 * BunchingGuard.BACKOFF));
        assertThat(guard.nextSlot(100)).isCloseTo(100 + interval, within(1L));
        guard.admitted(SIXTIETH, 1.0, 100 + interval);
        assertThat(guard.nextSlot(100 + interval)).isCloseTo(100 + 2 * interval, within(1L));
    }

    @Test
    void callsSentBeforeTheGuardTightenedDoNotTightenItAgain() {
        BunchingGuard guard = withCalls(4, SIXTIETH, 0);
        guard.throttled(1.0, 0, 100);
        double tightened = guard.factor(100);

        assertThat(guard.throttled(1.0, 0, 150)).as("the same episode is still the guard's").isTrue();
        assertThat(guard.factor(150)).isCloseTo(tightened, within(1e-3));
        assertThat(guard.throttles()).isEqualTo(2);
    }

    @Test
    void whileGuardingTheBunchIsMeasuredAtTheCallsStartNotAtItsAnswer() {
        BunchingGuard guard = withCalls(4, SIXTIETH, 0);
        guard.throttled(1.0, 0, 100);
        guard.admitted(SIXTIETH, 1.0, 5_000);
        guard.admitted(SIXTIETH, 1.0, 5_000);

        assertThat(guard.throttled(1.0, 5_000, 6_500)).as("its own rule: the last second before the answer").isFalse();
        assertThat(guard.explains(1.0, 0, 6_500)).as("the call's start, in the bunch at 0").isTrue();
    }

    @Test
    void whileGuardingItExplainsBunchedThrottlesWithCallsLetThroughBetweenThem() {
        BunchingGuard guard = withCalls(4, SIXTIETH, 0);
        assertThat(guard.explains(1.0, 0, 100)).as("off: no sub-second limit shown yet").isFalse();
        guard.throttled(1.0, 0, 100);

        assertThat(guard.explains(1.0, 0, 100)).as("guarding, and the call started in a bunch").isTrue();
        assertThat(guard.explains(1.0, 0, 150)).as("sent before: the same episode").isTrue();
        guard.admitted(SIXTIETH, 1.0, 5_000);
        guard.admitted(SIXTIETH, 1.0, 5_000);
        assertThat(guard.explains(1.0, 5_000, 5_100))
                .as("the next call after it refused too: a minute-scale limit").isFalse();
        for (long at = 6_000; at < 9_000; at += 1_000) {
            guard.admitted(SIXTIETH, 1.0, at);
        }
        guard.admitted(SIXTIETH, 1.0, 9_000);
        guard.admitted(SIXTIETH, 1.0, 9_000);
        assertThat(guard.explains(1.0, 9_000, 9_100)).as("calls went through between the two").isTrue();
        assertThat(guard.explains(1.0, 8_000, 9_200)).as("a lone call is no bunch").isFalse();
    }

    @Test
    void neverCapsBelowTheEvenRateAndRecoversLinearlyUntilItSwitchesOff() {
        BunchingGuard guard = withCalls(2, SIXTIETH, 0);
        List<String> factors = new ArrayList<>();
        for (long at = 1; at <= 7; at++) {
            guard.admitted(SIXTIETH, 1.0, at);
            guard.throttled(1.0, at, at);
            factors.add(String.format("%.3f", guard.factor(at)));
        }
        assertThat(factors).containsExactly("2.550", "2.168", "1.842", "1.566", "1.331", "1.131", "1.000");
        assertThat(guard.factor(10)).isCloseTo(1.0, within(1e-4));

        assertThat(guard.factor(10 + 60_000)).isCloseTo(1.0 + BunchingGuard.RECOVERY_PER_MINUTE, within(1e-3));
        long offAfterMinutes = (long) Math.ceil((BunchingGuard.OFF_ABOVE - 1.0) / BunchingGuard.RECOVERY_PER_MINUTE) + 1;
        assertThat(guard.factor(10 + offAfterMinutes * 60_000)).isInfinite();
        assertThat(guard.nextSlot(10 + offAfterMinutes * 60_000)).isEqualTo(10 + offAfterMinutes * 60_000);
    }

    @Test
    void idleTimeBanksNoMoreThanTheLatenessAllowance() {
        BunchingGuard guard = withCalls(4, SIXTIETH, 0);
        guard.throttled(1.0, 0, 100);
        guard.admitted(SIXTIETH, 1.0, 100);

        guard.admitted(SIXTIETH, 1.0, 20_000);
        long interval = Math.round(1_000 / guard.factor(20_000));
        assertThat(guard.nextSlot(20_000))
                .isCloseTo(20_000 - DimensionBudget.LATENESS_MICROS / 1_000 + interval, within(1L));
    }

    /**
     * The pacer against a provider that takes at most three times the even rate of reservations in
     * any second: calls reserving ten times what they use, spaced by what they use, bunch five times
     * over it. After its first throttles the guard holds them under the limit, at most 1% of calls
     * are throttled, and the pacer still starts reservations at well over the even rate.
     */
    @Test
    void thePacerLearnsASubSecondLimitFromItsThrottlesAndStaysUnderIt() {
        Quota quota = Quota.tokensPerMinute(600_000);
        Pacer pacer = Pacer.create(quota, PacerSettings.builder()
                .targetUtilization(1.0).minimumTarget(0.5).slowStartMillis(0).build());
        long limitPerSecond = 30_000;
        ArrayDeque<long[]> started = new ArrayDeque<>();
        List<Admission> outstanding = new ArrayList<>();
        int sequence = 0;
        long calls = 0;
        long throttles = 0;
        long reservedAfterFirstMinute = 0;
        long now = 0;
        long nextPoll = 500;
        while (now < 300_000) {
            Candidate head = new Candidate("r" + sequence, Lane.BULK, "t", TokenUsage.of(100, 900), 0, Long.MAX_VALUE);
            Decision decision = pacer.decide(List.of(head), now);
            if (decision instanceof Decision.Admit admit) {
                sequence++;
                calls++;
                while (!started.isEmpty() && started.peekFirst()[0] <= now - 1_000) {
                    started.pollFirst();
                }
                long reservation = admit.admission().reservation().amount(QuotaDimension.TOKENS);
                long inSecond = started.stream().mapToLong(s -> s[1]).sum();
                if (inSecond + reservation > limitPerSecond) {
                    throttles++;
                    pacer.throttled(admit.admission(), now);
                } else {
                    started.addLast(new long[] {now, reservation});
                    outstanding.add(admit.admission());
                    if (now >= 60_000) {
                        reservedAfterFirstMinute += reservation;
                    }
                }
                continue;
            }
            long wake = ((Decision.WaitUntil) decision).atMillis();
            if (wake >= nextPoll) {
                now = nextPoll;
                for (Admission admission : outstanding) {
                    pacer.settle(admission, TokenUsage.of(100, 0), now);
                }
                outstanding.clear();
                nextPoll += 500;
            } else {
                now = wake;
            }
        }

        assertThat(throttles).isPositive().isLessThanOrEqualTo(calls / 100);
        double evenRatePerSecond = 10_000;
        assertThat(reservedAfterFirstMinute / 240.0).isGreaterThan(2 * evenRatePerSecond);
    }
}
