package dev.trafficshaper.simulator.provider;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import java.util.EnumMap;
import java.util.List;
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
 *
 * <p>An optional {@link ShortHorizon} limit sits under the per-minute meters: a call must pass both.
 * {@link #earliestAdmission} reads every meter's state (what no client can do) for the simulator's
 * oracle.
 */
public final class ProviderQuota {

    private final Quota quota;
    private final Leniency leniency;
    private final Map<QuotaDimension, Meter> meters = new EnumMap<>(QuotaDimension.class);
    private final Map<QuotaDimension, Meter> shortHorizon = new EnumMap<>(QuotaDimension.class);
    private long throttles;
    private long shortHorizonThrottles;
    private long accepted;

    private final SplittableRandom random;

    private ProviderQuota(Quota quota, QuotaModel model, Leniency leniency, double backgroundShare,
            ShortHorizon horizon, long seed) {
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
                if (horizon.enabled()) {
                    shortHorizon.put(dimension, new ShortHorizonMeter(horizon, free));
                }
            }
        }
    }

    /** A meter whose burst-allowance decisions are drawn from a generator seeded with {@code seed}. */
    public static ProviderQuota create(Quota quota, QuotaModel model, Leniency leniency, double backgroundShare,
            long seed) {
        return create(quota, model, leniency, backgroundShare, ShortHorizon.OFF, seed);
    }

    /** The same with a short-horizon limit under the per-minute meters. */
    public static ProviderQuota create(Quota quota, QuotaModel model, Leniency leniency, double backgroundShare,
            ShortHorizon horizon, long seed) {
        return new ProviderQuota(quota, model, leniency, backgroundShare, horizon, seed);
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
                return throttle(reservation, handles, nowMillis);
            }
            handles.put(meter.getKey(), handle);
        }
        if (!shortHorizon.isEmpty() && !fitsShortHorizon(reservation, nowMillis)) {
            shortHorizonThrottles++;
            return throttle(reservation, handles, nowMillis);
        }
        for (Map.Entry<QuotaDimension, Meter> meter : shortHorizon.entrySet()) {
            meter.getValue().tryReserve(reservation.amount(meter.getKey()), nowMillis, 0);
        }
        accepted++;
        return new Reservation(reservation, handles);
    }

    private Reservation throttle(Charge reservation, Map<QuotaDimension, Object> handles, long nowMillis) {
        handles.forEach((dimension, h) -> meters.get(dimension).settle(h, reservation.amount(dimension), 0, nowMillis));
        penalize(reservation, nowMillis);
        throttles++;
        return null;
    }

    private boolean fitsShortHorizon(Charge reservation, long nowMillis) {
        for (Map.Entry<QuotaDimension, Meter> meter : shortHorizon.entrySet()) {
            if (meter.getValue().earliestFit(reservation.amount(meter.getKey()), nowMillis) != nowMillis) {
                return false;
            }
        }
        return true;
    }

    /**
     * The earliest time at or after {@code nowMillis} at which {@link #tryReserve} would accept the
     * reservation on every dimension within the quota (whatever the burst allowance's roll), supposing
     * nothing else is reserved or settled meanwhile; {@link Long#MAX_VALUE} if never. Reads the meters
     * without changing them: the oracle's view, which no client has.
     */
    public synchronized long earliestAdmission(Charge reservation, long nowMillis) {
        long at = nowMillis;
        for (int round = 0; round < 1_000; round++) {
            long latest = at;
            for (Map<QuotaDimension, Meter> group : List.of(meters, shortHorizon)) {
                for (Map.Entry<QuotaDimension, Meter> meter : group.entrySet()) {
                    long fit = meter.getValue().earliestFit(reservation.amount(meter.getKey()), latest);
                    if (fit == Long.MAX_VALUE) {
                        return Long.MAX_VALUE;
                    }
                    latest = Math.max(latest, fit);
                }
            }
            if (latest == at) {
                return at;
            }
            at = latest;
        }
        throw new IllegalStateException("no admission time found for " + reservation + " from " + nowMillis);
    }

    /** Ends an accepted request: what it really used replaces what was reserved. */
    public synchronized void settle(Reservation reservation, Charge actual, long nowMillis) {
        reservation.handles().forEach((dimension, handle) -> meters.get(dimension)
                .settle(handle, reservation.charge().amount(dimension), actual.amount(dimension), nowMillis));
    }

    public synchronized long throttles() {
        return throttles;
    }

    /** Throttles by the short-horizon limit alone (the minute had room). */
    public synchronized long shortHorizonThrottles() {
        return shortHorizonThrottles;
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
