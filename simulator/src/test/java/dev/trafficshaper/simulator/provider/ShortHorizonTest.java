package dev.trafficshaper.simulator.provider;

import static dev.trafficshaper.simulator.provider.MinuteQuota.QUOTA;
import static dev.trafficshaper.simulator.provider.MinuteQuota.tokens;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShortHorizonTest {

    /** Within any second, at most 10% of a minute's quota (6,000 tokens). */
    private static final ShortHorizon ONE_SECOND_TEN_PERCENT = new ShortHorizon(1_000, 0.10);

    private static ProviderQuota withHorizon(QuotaModel model, ShortHorizon horizon) {
        return ProviderQuota.create(QUOTA, model, Leniency.STRICT, 0, horizon, 0);
    }

    @Test
    void offByDefaultAFullBucketIsSpentAtOnce() {
        ProviderQuota quota = ProviderQuota.create(QUOTA, QuotaModel.TOKEN_BUCKET, Leniency.STRICT, 0);
        for (int i = 0; i < 10; i++) {
            assertThat(quota.tryReserve(tokens(6_000), 0)).isNotNull();
        }
        assertThat(quota.shortHorizonThrottles()).isZero();
    }

    @Test
    void bunchedCallsBeyondTheShareWithinTheHorizonAreThrottledThoughTheMinuteHasRoom() {
        for (QuotaModel model : QuotaModel.values()) {
            ProviderQuota quota = withHorizon(model, ONE_SECOND_TEN_PERCENT);

            assertThat(quota.tryReserve(tokens(4_000), 0)).as(model.wireName()).isNotNull();
            assertThat(quota.tryReserve(tokens(2_000), 500)).as(model.wireName()).isNotNull();
            assertThat(quota.tryReserve(tokens(1), 999)).as(model.wireName()).isNull();
            assertThat(quota.tryReserve(tokens(2_000), 1_000)).as("the first call left the horizon").isNotNull();
            assertThat(quota.shortHorizonThrottles()).isEqualTo(1);
            assertThat(quota.throttles()).isEqualTo(1);
        }
    }

    @Test
    void evenlySpacedCallsNeverMeetIt() {
        ProviderQuota quota = withHorizon(QuotaModel.TOKEN_BUCKET, ONE_SECOND_TEN_PERCENT);
        for (long t = 0; t < 120_000; t += 100) {
            assertThat(quota.tryReserve(tokens(100), t)).isNotNull();
        }
        assertThat(quota.throttles()).isZero();
    }

    @Test
    void aLoneCallLargerThanTheShareStillGoesThrough() {
        ProviderQuota quota = withHorizon(QuotaModel.TOKEN_BUCKET, ONE_SECOND_TEN_PERCENT);

        assertThat(quota.earliestAdmission(tokens(20_000), 0)).isZero();
        assertThat(quota.tryReserve(tokens(20_000), 0)).isNotNull();
        assertThat(quota.earliestAdmission(tokens(1), 10)).isEqualTo(1_000);
        assertThat(quota.tryReserve(tokens(1), 10)).isNull();
    }

    @Test
    void theOraclesReadingCountsTheHorizon() {
        ProviderQuota quota = withHorizon(QuotaModel.SLIDING_WINDOW, ONE_SECOND_TEN_PERCENT);
        quota.tryReserve(tokens(3_000), 0);
        quota.tryReserve(tokens(3_000), 400);

        assertThat(quota.earliestAdmission(tokens(3_000), 600)).isEqualTo(1_000);
        assertThat(quota.earliestAdmission(tokens(6_000), 600)).isEqualTo(1_400);
        assertThat(quota.tryReserve(tokens(3_000), 1_000)).isNotNull();
    }

    @Test
    void settlementsDoNotFreeTheHorizon() {
        ProviderQuota quota = withHorizon(QuotaModel.TOKEN_BUCKET, ONE_SECOND_TEN_PERCENT);
        ProviderQuota.Reservation r = quota.tryReserve(tokens(6_000), 0);
        quota.settle(r, tokens(100), 100);

        assertThat(quota.tryReserve(tokens(1_000), 200)).isNull();
    }

    @Test
    void itsKnobsAreChecked() {
        assertThat(ShortHorizon.OFF.enabled()).isFalse();
        assertThatThrownBy(() -> new ShortHorizon(1_000, 0)).hasMessageContaining("share");
        assertThatThrownBy(() -> new ShortHorizon(60_000, 0.5)).hasMessageContaining("millis");
        assertThatThrownBy(() -> new ShortHorizon(-1, 0.5)).hasMessageContaining("millis");
    }
}
