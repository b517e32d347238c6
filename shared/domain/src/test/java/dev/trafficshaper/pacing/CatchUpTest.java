package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CatchUpTest {

    private static final PacerSettings ON = PacerSettings.builder().targetUtilization(0.9).slowStartMillis(0).build();
    private static final PacerSettings OFF = PacerSettings.builder().targetUtilization(0.9).slowStartMillis(0)
            .headroom(false).build();
    private static final long T0 = 1_800_000_000_000L;

    @Test
    void withHeadroomOnTheSpacingRunsAtTwiceTheRateAndEachWithdrawalHalvesTheExtraUntilItIsGone() {
        CatchUp catchUp = new CatchUp(ON);
        assertThat(catchUp.factor()).isEqualTo(2.0);

        catchUp.throttled(T0);
        catchUp.throttled(T0 + 500); // the same second: one answer
        assertThat(catchUp.factor()).isEqualTo(1.5);
        catchUp.throttled(T0 + 1_000);
        catchUp.throttled(T0 + 2_000);
        assertThat(catchUp.factor()).isEqualTo(1.125);
        catchUp.throttled(T0 + 3_000);
        assertThat(catchUp.factor()).isEqualTo(1.0);
        assertThat(catchUp.withdrawals()).isEqualTo(4);
    }

    @Test
    void inStrictModeTheSpacingIsTheEvenRateWhateverHappens() {
        CatchUp catchUp = new CatchUp(OFF);
        catchUp.throttled(T0);
        catchUp.restore(0);

        assertThat(catchUp.factor()).isEqualTo(1.0);
        assertThat(catchUp.withdrawals()).isZero();
    }

    @Test
    void aSuccessorRestoresTheWithdrawals() {
        CatchUp catchUp = new CatchUp(ON);
        catchUp.restore(2);

        assertThat(catchUp.factor()).isEqualTo(1.25);
    }

    /**
     * An empty window, a long backlog of tenths of the target minute: the first ten go in 30 s, not
     * 60 s. (The bank, which would spend another minute beside the window, has learnt that this
     * meter does not bank.)
     */
    @Test
    void anEmptyWindowIsSpentAtTwiceTheEvenRateAndTheWindowStillHoldsTheMinute() {
        Quota quota = Quota.tokensPerMinute(1_000_000);
        PacerState fresh = Pacer.create(quota, ON).export(T0);
        PacerState noBank = new PacerState(fresh.capturedAtMillis(), fresh.outputBurndown(), fresh.dimensions(),
                fresh.target(), fresh.lastThrottleAtMillis(), fresh.lastAdmissionAtMillis(), fresh.slowStartAtMillis(),
                fresh.tenantNextSlotMicros(), fresh.outputShare(), fresh.forgiveness(), fresh.lift(),
                fresh.headroomBudget(), fresh.inputScale(),
                new PacerState.BankState(4, PacerState.NEVER, Map.of(), Map.of(), 0.0, PacerState.NEVER),
                fresh.openCalls());
        List<Long> on = admissions(Pacer.resume(quota, ON, noBank, T0), 20);
        List<Long> off = admissions(Pacer.create(quota, OFF), 20);

        // 90k tokens each: ten fill the 900k window; twice the even rate spends it in 30 s
        assertThat(on.get(9) - on.get(0)).isBetween(26_000L, 32_000L);
        assertThat(off.get(9) - off.get(0)).isBetween(52_000L, 64_000L);
        for (int i = 10; i < on.size(); i++) {
            assertThat(on.get(i) - on.get(i - 10)).as("ten admissions never within 60 s").isGreaterThanOrEqualTo(60_000L);
        }
    }

    private static List<Long> admissions(Pacer pacer, int count) {
        List<Long> times = new ArrayList<>();
        long now = T0;
        int next = 0;
        while (times.size() < count) {
            Candidate candidate = new Candidate("r" + next, Lane.BULK, "t", TokenUsage.of(89_000, 1_000), T0,
                    T0 + 3_600_000);
            Decision decision = pacer.decide(List.of(candidate), now);
            if (decision instanceof Decision.Admit admit) {
                times.add(now);
                pacer.settle(admit.admission(), TokenUsage.of(89_000, 1_000), now);
                next++;
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        return times;
    }
}
