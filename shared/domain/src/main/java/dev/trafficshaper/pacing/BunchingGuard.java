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
 *   on a throttle with bunching ≥ 2:  B = max(1, 0.85 × min(B, bunching))
 *   admit at     max(spacing, tat);   tat' = max(tat, now − lateness) + reservation ÷ (B × rate)
 *   recovery:    B(t) = B + 1/4 × minutes since the guard's last throttle; off above 16
 * </pre>
 *
 * {@code B = 1} is the rate a per-minute quota allows anyway, so at worst the guard spaces as the
 * strict bound before expected-cost spacing did. A throttle with the last second spread evenly is
 * not bunching: the target ({@link ThrottleFeedback}) or the probe ({@link Headroom}) answers it.
 *
 * <p>Once the guard is guarding (a sub-second limit has shown itself), a throttle of a call that
 * started in a bunch is the guard's whoever paid for the call, the bunch measured over the horizon
 * up to the call's start rather than up to its answer (which comes after the dispatch and Bedrock's
 * refusal, a second or more for a cold start, by when the bunch may have left the last second):
 * a call the bank's credit or the refunding bucket's model let through, throttled in a bunch, says
 * that the starts were too close, not that the meter banks nothing or is no bucket, so those keep
 * their trust ({@link #explains}), unless fewer than {@value #CALLS_BETWEEN} calls started between
 * the last such throttle's answer and this call: a sub-second limit lets the calls after a
 * tightened guard through, a full minute's window refuses the next ones too. Withdrawing them
 * there closed the refunding bucket's gate for good: {@code long-generations-split-tpm} under the
 * token bucket with the simulator's short-horizon limit on ran at the strict window's 18 calls a
 * minute, 2.98× the oracle.
 * Load states: <b>off</b> (no bunched throttle yet, or recovered: the spacing alone, bit for bit);
 * <b>guarding</b> (reservations start at most B × the target rate); <b>recovering</b> (B rising).
 */
final class BunchingGuard {

    static final long HORIZON_MILLIS = 1_000;
    static final double BUNCHED = 2.0;
    static final double BACKOFF = 0.85;
    static final double RECOVERY_PER_MINUTE = 0.25;
    static final double OFF_ABOVE = 16.0;
    /** How long a call's start is kept: the longest wait for its answer the guard still reads. */
    static final long RETAIN_MILLIS = 60_000;
    /** A throttle {@link #explains} is the guard's only after this many calls started between it and the last. */
    static final int CALLS_BETWEEN = 3;
    private static final double OFF = Double.POSITIVE_INFINITY;

    /** (start millis, normalised reservation) of the calls started within the last horizon. */
    private final ArrayDeque<double[]> recent = new ArrayDeque<>();
    private double recentSum;
    /** The same within the last {@link #RETAIN_MILLIS}, for {@link #explains}. */
    private final ArrayDeque<double[]> started = new ArrayDeque<>();
    private double factor = OFF;
    private long lastThrottleAt = Long.MIN_VALUE;
    private long excusedAt = Long.MIN_VALUE;
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

    /** Whether the guard caps the starts now: a sub-second limit has shown itself and it has not recovered. */
    boolean guarding(long nowMillis) {
        return factor(nowMillis) != OFF;
    }

    /** When the guard lets the next call start. */
    long nextSlot(long nowMillis) {
        if (!guarding(nowMillis) || tatMicros == Long.MIN_VALUE) {
            return nowMillis;
        }
        return Math.max(nowMillis, Math.floorDiv(tatMicros + 999, 1_000));
    }

    /** A call of {@code normalizedReservation} (share of a minute's quota) started at {@code rateShare}. */
    void admitted(double normalizedReservation, double rateShare, long nowMillis) {
        forgetBefore(nowMillis);
        recent.addLast(new double[] {nowMillis, normalizedReservation});
        recentSum += normalizedReservation;
        started.addLast(new double[] {nowMillis, normalizedReservation});
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
        tighten(bunching, admittedAtMillis, nowMillis);
        return true;
    }

    private void tighten(double bunching, long admittedAtMillis, long nowMillis) {
        throttles++;
        if (admittedAtMillis <= lastThrottleAt) {
            return; // sent before the guard last tightened: the same episode, already answered
        }
        double current = factor(nowMillis);
        factor = Math.max(1.0, Math.min(current, bunching) * BACKOFF);
        lastThrottleAt = nowMillis;
    }

    /**
     * Whether a throttle of a call started at {@code admittedAtMillis} is the guard's even though the
     * strict window would not have taken the call (the bank's credit or the refunding bucket's model
     * let it through): the guard is guarding, and the call started in a bunch. If so the guard
     * answers it as {@link #throttled} does, by that bunch.
     */
    boolean explains(double target, long admittedAtMillis, long nowMillis) {
        double bunching = guarding(nowMillis) ? bunchingAt(target, admittedAtMillis, nowMillis) : 0.0;
        if (!(bunching >= BUNCHED)) {
            return false;
        }
        boolean sameEpisode = excusedAt != Long.MIN_VALUE && admittedAtMillis <= excusedAt;
        if (!sameEpisode && excusedAt != Long.MIN_VALUE && startedBetween(excusedAt, admittedAtMillis) < CALLS_BETWEEN) {
            return false; // the next calls after the guard tightened are refused too: a minute-scale limit
        }
        if (!sameEpisode) {
            excusedAt = nowMillis;
        }
        tighten(bunching, admittedAtMillis, nowMillis);
        return true;
    }

    /** Calls started after {@code afterMillis} and before {@code beforeMillis}, among those kept. */
    private int startedBetween(long afterMillis, long beforeMillis) {
        int calls = 0;
        for (double[] call : started) {
            if (call[0] > afterMillis && call[0] < beforeMillis) {
                calls++;
            }
        }
        return calls;
    }

    /** The reservations started in the horizon up to {@code startMillis}, as a multiple of the target rate's. */
    private double bunchingAt(double target, long startMillis, long nowMillis) {
        forgetBefore(nowMillis);
        double sum = 0;
        for (double[] call : started) {
            if (call[0] > startMillis - HORIZON_MILLIS && call[0] <= startMillis) {
                sum += call[1];
            }
        }
        return sum / (target / 60.0);
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
        while (!started.isEmpty() && started.peekFirst()[0] <= nowMillis - RETAIN_MILLIS) {
            started.pollFirst();
        }
    }
}
