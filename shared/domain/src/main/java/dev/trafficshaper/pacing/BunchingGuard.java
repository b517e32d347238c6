package dev.trafficshaper.pacing;

import java.util.ArrayDeque;

/**
 * A floor under the spacing, learnt from throttles: the rate at which calls may start by their
 * whole reservation, when the provider shows it meters reservations over a horizon shorter than a
 * minute.
 *
 * <p>Why: the pacer spaces calls by what they are expected to use ({@link OutputShare}), so where a
 * reservation is many times its expected use (a large {@code maxTokens}, a 5× output burndown) the
 * reservations started in one second reach that ratio times the even rate. A per-minute meter does
 * not mind; a sub-second one does (the reference implementation found that bunched calls breach
 * such a limit at Bedrock, which publishes neither its horizon nor its share). Spacing by the whole
 * reservation avoids it always, at the cost of every refund the expected-cost spacing wins; so the
 * guard is off until a throttle comes while the last second's reservations were bunched, and then
 * caps how fast reservations start, as a multiple {@code B} of the target rate:
 *
 * <pre>
 *   bunching(t) = reservations started in (t − 1 s, t] ÷ (target × quota / 60)     (normalised)
 *   on a throttle with bunching ≥ 2:  B = max(1, min(B, bunching) / 2)
 *   admit at     max(spacing, tat);   tat' = max(tat, now − lateness) + reservation ÷ (B × rate)
 *   recovery:    B(t) = B + 1/4 × minutes since the guard's last throttle; off above 16
 * </pre>
 *
 * {@code B = 1} is the rate a per-minute quota allows anyway, so at worst the guard spaces as the
 * strict bound before expected-cost spacing did. A throttle with the last second spread evenly is
 * not bunching: the target ({@link ThrottleFeedback}) or the probe ({@link Headroom}) answers it.
 * Load states: <b>off</b> (no bunched throttle yet, or recovered: the spacing alone, bit for bit);
 * <b>guarding</b> (reservations start at most B × the target rate); <b>recovering</b> (B rising).
 */
final class BunchingGuard {

    static final long HORIZON_MILLIS = 1_000;
    static final double BUNCHED = 2.0;
    static final double BACKOFF = 0.85;
    static final double RECOVERY_PER_MINUTE = 0.25;
    static final double OFF_ABOVE = 16.0;
    private static final double OFF = Double.POSITIVE_INFINITY;

    /** (start millis, normalised reservation) of the calls started within the last horizon. */
    private final ArrayDeque<double[]> recent = new ArrayDeque<>();
    private double recentSum;
    private double factor = OFF;
    private long lastThrottleAt = Long.MIN_VALUE;
    private long tatMicros = Long.MIN_VALUE;
    private long throttles;

    /** The factor B at a moment; infinite while off. */
    double factor(long nowMillis) {
        if (factor == OFF) {
            return OFF;
        }
        double recovered = factor + RECOVERY_PER_MINUTE * Math.max(0, nowMillis - lastThrottleAt) / 60_000.0;
        return recovered > OFF_ABOVE ? OFF : recovered;
    }

    /** When the guard lets the next call start. */
    long nextSlot(long nowMillis) {
        if (factor(nowMillis) == OFF || tatMicros == Long.MIN_VALUE) {
            return nowMillis;
        }
        return Math.max(nowMillis, Math.floorDiv(tatMicros + 999, 1_000));
    }

    /** A call of {@code normalizedReservation} (share of a minute's quota) started at {@code rateShare}. */
    void admitted(double normalizedReservation, double rateShare, long nowMillis) {
        forgetBefore(nowMillis);
        recent.addLast(new double[] {nowMillis, normalizedReservation});
        recentSum += normalizedReservation;
        double b = factor(nowMillis);
        if (b == OFF) {
            tatMicros = Long.MIN_VALUE;
            return;
        }
        long floor = nowMillis * 1_000 - DimensionBudget.LATENESS_MICROS;
        long base = tatMicros == Long.MIN_VALUE ? nowMillis * 1_000 : Math.max(tatMicros, floor);
        tatMicros = base + Math.round(normalizedReservation * 60_000_000.0 / (b * rateShare));
    }

    /**
     * Bedrock throttled a call. Returns whether the last second's reservations were bunched, in
     * which case the guard answers it (and tightens).
     */
    boolean throttled(double target, long admittedAtMillis, long nowMillis) {
        forgetBefore(nowMillis);
        double bunching = recentSum / (target / 60.0);
        if (!(bunching >= BUNCHED)) {
            return false;
        }
        throttles++;
        if (admittedAtMillis <= lastThrottleAt) {
            return true; // sent before the guard last tightened: the same episode, already answered
        }
        double current = factor(nowMillis);
        factor = Math.max(1.0, Math.min(current, bunching) * BACKOFF);
        lastThrottleAt = nowMillis;
        return true;
    }

    long lastThrottleAt() {
        return lastThrottleAt;
    }

    /** Continues from a predecessor's factor (0: off) and its latest throttle. */
    void restore(double learntFactor, long throttleAtMillis) {
        if (learntFactor >= 1.0 && throttleAtMillis != PacerState.NEVER) {
            factor = learntFactor;
            lastThrottleAt = throttleAtMillis;
        }
    }

    /** Throttles the guard answered. */
    long throttles() {
        return throttles;
    }

    private void forgetBefore(long nowMillis) {
        while (!recent.isEmpty() && recent.peekFirst()[0] <= nowMillis - HORIZON_MILLIS) {
            recentSum -= recent.pollFirst()[1];
        }
        if (recent.isEmpty()) {
            recentSum = 0;
        }
    }
}
