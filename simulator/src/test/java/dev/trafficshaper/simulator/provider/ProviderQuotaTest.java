package dev.trafficshaper.simulator.provider;

import static dev.trafficshaper.simulator.provider.MinuteQuota.QUOTA;
import static dev.trafficshaper.simulator.provider.MinuteQuota.strict;
import static dev.trafficshaper.simulator.provider.MinuteQuota.tokens;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import org.junit.jupiter.api.Test;

class ProviderQuotaTest {

    @Test
    void tokenBucketAdmitsAMinuteAtOnceThenRefillsContinuously() {
        ProviderQuota quota = strict(QuotaModel.TOKEN_BUCKET);

        assertThat(quota.tryReserve(tokens(60_000), 0)).isNotNull();
        assertThat(quota.tryReserve(tokens(1_000), 999)).isNull();
        assertThat(quota.tryReserve(tokens(1_000), 1_000)).isNotNull();
        assertThat(quota.throttles()).isEqualTo(1);
    }

    @Test
    void fixedWindowResetsAtTheClockMinute() {
        ProviderQuota quota = strict(QuotaModel.FIXED_WINDOW);

        assertThat(quota.tryReserve(tokens(60_000), 59_000)).isNotNull();
        assertThat(quota.tryReserve(tokens(1), 59_999)).isNull();
        assertThat(quota.tryReserve(tokens(60_000), 60_000)).isNotNull();
    }

    @Test
    void slidingWindowFreesChargesSixtySecondsAfterThey() {
        ProviderQuota quota = strict(QuotaModel.SLIDING_WINDOW);

        assertThat(quota.tryReserve(tokens(30_000), 0)).isNotNull();
        assertThat(quota.tryReserve(tokens(30_000), 30_000)).isNotNull();
        assertThat(quota.tryReserve(tokens(30_000), 59_999)).isNull();
        assertThat(quota.tryReserve(tokens(30_000), 60_000)).isNotNull();
    }

    @Test
    void settlementRefundsTheUnusedReservation() {
        Quota claude = Quota.tokensPerMinute(60_000).withOutputBurndown(5);
        for (QuotaModel model : QuotaModel.values()) {
            ProviderQuota quota = ProviderQuota.create(claude, model, Leniency.STRICT, 0);
            ProviderQuota.Reservation r = quota.tryReserve(Charge.reservation(claude, TokenUsage.of(10_000, 10_000)), 0);
            assertThat(r.charge().tokens()).isEqualTo(60_000);
            assertThat(quota.tryReserve(Charge.reservation(claude, TokenUsage.of(1, 0)), 0)).as(model.wireName()).isNull();

            quota.settle(r, Charge.settlement(claude, TokenUsage.of(10_000, 1_000)), 2);

            assertThat(quota.tryReserve(Charge.reservation(claude, TokenUsage.of(45_000, 0)), 3)).as(model.wireName())
                    .isNotNull();
        }
    }

    @Test
    void throttledAttemptsCostTheQuotaWhenTheLeniencySaysSo() {
        ProviderQuota quota = ProviderQuota.create(QUOTA, QuotaModel.TOKEN_BUCKET, new Leniency(1.0, 1.0, false), 0);
        quota.tryReserve(tokens(50_000), 0);

        assertThat(quota.tryReserve(tokens(20_000), 0)).isNull();
        // The rejected 20k was charged (10k left became -10k), and so is the rejected 1k at 1 s.
        assertThat(quota.tryReserve(tokens(1_000), 1_000)).isNull();
        assertThat(quota.tryReserve(tokens(1_000), 12_000)).isNotNull();
    }

    @Test
    void burstAllowanceAcceptsSomeCallsPastTheQuotaAndNoneBeyondIt() {
        ProviderQuota quota = ProviderQuota.create(QUOTA, QuotaModel.TOKEN_BUCKET, new Leniency(2.0, 0, false), 0, 7);
        int accepted = 0;
        for (int i = 0; i < 200; i++) {
            if (quota.tryReserve(tokens(1_000), 0) != null) {
                accepted++;
            }
        }
        assertThat(accepted).isGreaterThan(60).isLessThanOrEqualTo(120);
    }

    @Test
    void backgroundLoadTakesItsShareOfTheQuota() {
        ProviderQuota quota = ProviderQuota.create(QUOTA, QuotaModel.SLIDING_WINDOW, Leniency.STRICT, 0.25);

        assertThat(quota.tryReserve(tokens(45_000), 0)).isNotNull();
        assertThat(quota.tryReserve(tokens(1), 1)).isNull();
    }
}
