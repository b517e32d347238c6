package dev.trafficshaper.simulator.provider;

import static dev.trafficshaper.simulator.provider.MinuteQuota.QUOTA;
import static dev.trafficshaper.simulator.provider.MinuteQuota.strict;
import static dev.trafficshaper.simulator.provider.MinuteQuota.tokens;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The oracle's reading of the meter: when a reservation would be accepted, without changing the meter. */
class EarliestAdmissionTest {

    @Test
    void aBucketAdmitsOnceItHasRefilledEnough() {
        ProviderQuota quota = strict(QuotaModel.TOKEN_BUCKET);
        quota.tryReserve(tokens(60_000), 0);

        assertThat(quota.earliestAdmission(tokens(1_000), 0)).isEqualTo(1_000);
        assertThat(quota.earliestAdmission(tokens(30_000), 500)).isEqualTo(30_000);
        assertThat(quota.throttles()).as("reading the meter charges nothing").isZero();
    }

    @Test
    void aFixedWindowAdmitsAtTheNextClockMinute() {
        ProviderQuota quota = strict(QuotaModel.FIXED_WINDOW);
        quota.tryReserve(tokens(50_000), 59_000);

        assertThat(quota.earliestAdmission(tokens(10_000), 59_500)).isEqualTo(59_500);
        assertThat(quota.earliestAdmission(tokens(10_001), 59_500)).isEqualTo(60_000);
    }

    @Test
    void aSlidingWindowAdmitsWhenEnoughOfItsEntriesHaveExpired() {
        ProviderQuota quota = strict(QuotaModel.SLIDING_WINDOW);
        quota.tryReserve(tokens(20_000), 0);
        quota.tryReserve(tokens(20_000), 10_000);
        quota.tryReserve(tokens(20_000), 20_000);

        assertThat(quota.earliestAdmission(tokens(20_000), 30_000)).isEqualTo(60_000);
        assertThat(quota.earliestAdmission(tokens(40_000), 30_000)).isEqualTo(70_000);
    }

    @Test
    void aReservationLargerThanTheQuotaNeverFits() {
        for (QuotaModel model : QuotaModel.values()) {
            assertThat(strict(model).earliestAdmission(tokens(60_001), 0)).as(model.wireName())
                    .isEqualTo(Long.MAX_VALUE);
        }
    }

    @Test
    void theBurstAllowanceIsNotCountedOn() {
        ProviderQuota quota = ProviderQuota.create(QUOTA, QuotaModel.TOKEN_BUCKET, new Leniency(3.0, 0, false), 0);
        quota.tryReserve(tokens(60_000), 0);

        assertThat(quota.earliestAdmission(tokens(1_000), 0)).isEqualTo(1_000);
    }

    /**
     * Property: under any history of reservations and settlements, a call at the earliest admission
     * time is accepted, and asking from a millisecond before gives the same time (it is the first).
     */
    @ParameterizedTest
    @EnumSource(QuotaModel.class)
    void theEarliestAdmissionIsExactlyWhenTheMeterAccepts(QuotaModel model) {
        Quota quota = Quota.tokensPerMinute(100_000).withOutputBurndown(5);
        for (boolean refundAtSettlement : new boolean[] {false, true}) {
            SplittableRandom random = new SplittableRandom(model.ordinal() * 2L + (refundAtSettlement ? 1 : 0));
            ProviderQuota meter = ProviderQuota.create(quota, model, new Leniency(1.0, 0, refundAtSettlement), 0.1);
            List<ProviderQuota.Reservation> open = new ArrayList<>();
            long now = 0;
            for (int step = 0; step < 400; step++) {
                now += random.nextLong(3_000);
                if (!open.isEmpty() && random.nextBoolean()) {
                    ProviderQuota.Reservation done = open.remove(random.nextInt(open.size()));
                    meter.settle(done, Charge.settlement(quota, TokenUsage.of(done.charge().inputTokens(),
                            random.nextLong(1_000))), now);
                }
                Charge next = Charge.reservation(quota, TokenUsage.of(1 + random.nextLong(8_000), 2_000));
                long at = meter.earliestAdmission(next, now);
                assertThat(at).as("step %d", step).isGreaterThanOrEqualTo(now).isLessThan(Long.MAX_VALUE);
                if (at > now) {
                    assertThat(meter.earliestAdmission(next, at - 1)).as("not a millisecond sooner").isEqualTo(at);
                }
                ProviderQuota.Reservation r = meter.tryReserve(next, at);
                assertThat(r).as("%s step %d at %d", model, step, at).isNotNull();
                open.add(r);
                now = at;
            }
            assertThat(meter.throttles()).isZero();
        }
    }
}
