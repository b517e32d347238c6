package dev.trafficshaper.simulator.provider;

/**
 * The {@link ShortHorizon} limit on one dimension: a sliding window of the horizon over the
 * reservations calls made at start, holding at most the share of the minute's quota, except that a
 * call into an empty window always fits. Settlements and throttle penalties leave it alone.
 */
final class ShortHorizonMeter implements Meter {

    private final SlidingWindowMeter window;

    ShortHorizonMeter(ShortHorizon horizon, double minuteQuota) {
        long limit = Math.max(1, (long) (minuteQuota * horizon.share()));
        this.window = new SlidingWindowMeter(horizon.millis(), limit, limit, false);
    }

    @Override
    public Object tryReserve(long amount, long nowMillis, double roll) {
        Object handle = window.tryReserve(amount, nowMillis, roll);
        if (handle == null && window.emptyAt(nowMillis)) {
            window.penalize(amount, nowMillis);
            return Boolean.TRUE;
        }
        return handle;
    }

    @Override
    public long earliestFit(long amount, long fromMillis) {
        long at = window.earliestFit(amount, fromMillis);
        if (at != Long.MAX_VALUE) {
            return at;
        }
        return window.earliestEmpty(fromMillis);
    }

    @Override
    public void settle(Object handle, long reserved, long actual, long nowMillis) {
    }

    @Override
    public void penalize(long amount, long nowMillis) {
    }
}
