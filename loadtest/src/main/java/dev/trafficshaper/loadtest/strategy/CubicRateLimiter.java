package dev.trafficshaper.loadtest.strategy;

/**
 * The AWS SDKs' adaptive retry mode: a client-side request-rate limiter, off until the first
 * throttle, then steered by CUBIC — multiplicative decrease (β = 0.7) on a throttle, cubic growth
 * back towards and past the last rate that throttled. It counts requests, not tokens, and each
 * client instance has its own, unaware of the others.
 *
 * <pre>
 *   on throttle: lastMax = min(measured, fill) ; rate = lastMax × β ; K = ∛(lastMax × (1 − β) / C)
 *   on success:  rate = C × (t − lastThrottle − K)³ + lastMax
 *   fill rate  = max(0.5, min(rate, 2 × measured)) requests per second, capacity = fill rate
 * </pre>
 * Times are in seconds, as in the SDKs.
 */
final class CubicRateLimiter {

    private static final double BETA = 0.7;
    private static final double SCALE = 0.4;
    private static final double SMOOTH = 0.8;
    private static final double MIN_FILL_RATE = 0.5;
    private static final double MIN_CAPACITY = 1.0;

    private boolean enabled;
    private double fillRate = MIN_FILL_RATE;
    private double capacity = MIN_CAPACITY;
    private double tokens;
    private double lastRefill;
    private double measuredRate;
    private double lastRateBucket;
    private long requestCount;
    private double lastMaxRate;
    private double lastThrottle;
    private double timeWindow;

    CubicRateLimiter(long nowMillis) {
        double now = nowMillis / 1_000.0;
        this.lastRefill = now;
        this.lastRateBucket = Math.floor(now * 2) / 2;
        this.lastThrottle = now;
    }

    /** When one request may be sent, not before {@code nowMillis}; takes the token if it is now. */
    long tryAcquire(long nowMillis) {
        if (!enabled) {
            return nowMillis;
        }
        refill(nowMillis / 1_000.0);
        if (tokens >= 1.0) {
            tokens -= 1.0;
            return nowMillis;
        }
        return nowMillis + (long) Math.ceil((1.0 - tokens) / fillRate * 1_000);
    }

    void onResponse(boolean throttled, long nowMillis) {
        double now = nowMillis / 1_000.0;
        updateMeasuredRate(now);
        double calculated;
        if (throttled) {
            double rateToUse = enabled ? Math.min(measuredRate, fillRate) : measuredRate;
            lastMaxRate = rateToUse;
            timeWindow = Math.cbrt(lastMaxRate * (1 - BETA) / SCALE);
            lastThrottle = now;
            calculated = rateToUse * BETA;
            enabled = true;
        } else {
            timeWindow = Math.cbrt(lastMaxRate * (1 - BETA) / SCALE);
            calculated = SCALE * Math.pow(now - lastThrottle - timeWindow, 3) + lastMaxRate;
        }
        double newRate = Math.min(calculated, 2 * measuredRate);
        refill(now);
        fillRate = Math.max(newRate, MIN_FILL_RATE);
        capacity = Math.max(newRate, MIN_CAPACITY);
        tokens = Math.min(tokens, capacity);
    }

    private void refill(double now) {
        if (now > lastRefill) {
            tokens = Math.min(capacity, tokens + (now - lastRefill) * fillRate);
            lastRefill = now;
        }
    }

    private void updateMeasuredRate(double now) {
        double bucket = Math.floor(now * 2) / 2;
        requestCount++;
        if (bucket > lastRateBucket) {
            double current = requestCount / (bucket - lastRateBucket);
            measuredRate = current * SMOOTH + measuredRate * (1 - SMOOTH);
            requestCount = 0;
            lastRateBucket = bucket;
        }
    }
}
