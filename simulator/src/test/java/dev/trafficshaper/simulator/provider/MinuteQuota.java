package dev.trafficshaper.simulator.provider;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;

/** The provider tests' quota: 60,000 tokens a minute (1,000 a second), and reservations of it. */
final class MinuteQuota {

    static final Quota QUOTA = Quota.tokensPerMinute(60_000);

    private MinuteQuota() {
    }

    /** A reservation of {@code n} input tokens. */
    static Charge tokens(long n) {
        return Charge.reservation(QUOTA, TokenUsage.of(n, 0));
    }

    /** The quota metered under {@code model}, with no leniency and no noise. */
    static ProviderQuota strict(QuotaModel model) {
        return ProviderQuota.create(QUOTA, model, Leniency.STRICT, 0);
    }
}
