package dev.trafficshaper.simulator.provider;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Bedrock's side of one model's quota: every metered dimension, checked at request start against
 * the full reservation and settled to actual usage at the end, under a chosen {@link QuotaModel}.
 * Thread-safe, so the HTTP Bedrock simulator can share it between connections.
 *
 * <p>Background load (another application on the same quota) is modelled as a steady share of the
 * quota that is never available: the bucket refills that much slower, the windows hold that much
 * less.
 */
public final class ProviderQuota {

    private final Quota quota;
    private final Leniency leniency;
    private final Map<QuotaDimension, Meter> meters = new EnumMap<>(QuotaDimension.class);
    private long throttles;
    private long accepted;

    private final SplittableRandom random;

    private ProviderQuota(Quota quota, QuotaModel model, Leniency leniency, double backgroundShare, long seed) {
        if (backgroundShare < 0 || backgroundShare >= 1) {
            throw new IllegalArgumentException("background load must be a share in [0, 1), was " + backgroundShare);
        }
        this.quota = quota;
        this.leniency = leniency;
        this.random = new SplittableRandom(seed);
        for (QuotaDimension dimension : QuotaDimension.values()) {
            long limit = quota.limit(dimension);
            if (limit > 0) {
                double free = limit * (1.0 - backgroundShare);
                double ceiling = limit * leniency.burstAllowance() - limit * backgroundShare;
                meters.put(dimension, switch (model) {
                    case TOKEN_BUCKET -> new TokenBucketMeter(free, ceiling, free);
                    case FIXED_WINDOW -> new FixedWindowMeter((long) free, (long) ceiling, leniency.refundAtSettlement());
                    case SLIDING_WINDOW -> new SlidingWindowMeter((long) free, (long) ceiling,
                            leniency.refundAtSettlement());
                });
            }
        }
    }

    /** A meter whose burst-allowance decisions are drawn from a generator seeded with {@code seed}. */
    public static ProviderQuota create(Quota quota, QuotaModel model, Leniency leniency, double backgroundShare,
            long seed) {
        return new ProviderQuota(quota, model, leniency, backgroundShare, seed);
    }

    public static ProviderQuota create(Quota quota, QuotaModel model, Leniency leniency, double backgroundShare) {
        return create(quota, model, leniency, backgroundShare, 0);
    }

    public Quota quota() {
        return quota;
    }

    /**
     * Reserves the charge on every dimension, or none of them: returns the reservation, or null when
     * the request is throttled (after charging the throttle penalty, if any).
     */
    public synchronized Reservation tryReserve(Charge reservation, long nowMillis) {
        Map<QuotaDimension, Object> handles = new EnumMap<>(QuotaDimension.class);
        double roll = random.nextDouble();
        for (Map.Entry<QuotaDimension, Meter> meter : meters.entrySet()) {
            long amount = reservation.amount(meter.getKey());
            Object handle = meter.getValue().tryReserve(amount, nowMillis, roll);
            if (handle == null) {
                handles.forEach((dimension, h) ->
                        meters.get(dimension).settle(h, reservation.amount(dimension), 0, nowMillis));
                penalize(reservation, nowMillis);
                throttles++;
                return null;
            }
            handles.put(meter.getKey(), handle);
        }
        accepted++;
        return new Reservation(reservation, handles);
    }

    /** Ends an accepted request: what it really used replaces what was reserved. */
    public synchronized void settle(Reservation reservation, Charge actual, long nowMillis) {
        reservation.handles().forEach((dimension, handle) -> meters.get(dimension)
                .settle(handle, reservation.charge().amount(dimension), actual.amount(dimension), nowMillis));
    }

    public synchronized long throttles() {
        return throttles;
    }

    public synchronized long accepted() {
        return accepted;
    }

    private void penalize(Charge reservation, long nowMillis) {
        if (leniency.throttledChargeFactor() == 0) {
            return;
        }
        for (Map.Entry<QuotaDimension, Meter> meter : meters.entrySet()) {
            long penalty = Math.round(reservation.amount(meter.getKey()) * leniency.throttledChargeFactor());
            meter.getValue().penalize(penalty, nowMillis);
        }
    }

    /** An accepted request's hold on the quota, to be settled when it ends. */
    public record Reservation(Charge charge, Map<QuotaDimension, Object> handles) {
    }
}
