package dev.trafficshaper.pacing;

/**
 * How fast the bank's first allotment goes ({@link BankedCapacity}) when its episode opens late in a
 * clock minute: fast enough to be spent before the minute turns.
 *
 * <p>Why: after a minute with nothing charged, every meter takes a whole quota at any pace (a full
 * bucket, an empty window), but a fixed clock-minute window takes it only until its minute turns:
 * what the bank has not spent by then is lost to it, while the oracle spends it at once. At the
 * bank's even rate, an episode opening 10 s before the turn spends a sixth of its bank in that
 * minute ({@code minute-boundary-burst} under the fixed window: 1.36× the oracle, slower than
 * {@code sdk-adaptive}). So the first allotment goes at the pace that spends it
 * {@value #TURN_MARGIN_MILLIS} ms before the turn (a call reaches the meter a dispatch after it is
 * sent), where that pace is more than {@value #QUICK_FROM} times the even rate (even spacing
 * would leave more than half the bank at that margin); with a whole bank, an episode opening in
 * the first 20 s of its minute keeps the even rate and is unchanged. The ramp below ends it up to
 * 2 s × (1 − {@value #RAMP_MULTIPLE} ÷ pace) later (1.3 s at 12 times), within the margin. Quick,
 * never past the quota: a call goes quickly only while the 60 s ledger, the call included, holds
 * no more than the quota on every dimension (what every meter takes after an idle minute).
 *
 * <pre>
 *   the episode opens t ms into its clock minute, with share s of the target:
 *       pace = s × 60 000 / (60 000 − t − margin)       ({@value #MAX_MULTIPLE} if that is not positive)
 *       pace ≤ {@value #QUICK_FROM} → 1 (even);  pace &gt; {@value #MAX_MULTIPLE} → {@value #MAX_MULTIPLE}
 *   a banked call is quick while the allotment (s × target, normalised) is not spent and
 *       ledger(60 s) with the call ≤ quota on every dimension
 *   ramp: within {@value #RAMP_MILLIS} ms of the first quick call, at most {@value #RAMP_MULTIPLE}
 *   after a quick call, a banked call also needs ledger(60 s) + call ≤ quota × (1 + elapsed / 60 s)
 * </pre>
 *
 * Why the ramp: Bedrock refuses bunched calls over a sub-second horizon ({@link BunchingGuard}),
 * and a refusal comes back a dispatch later; at {@value #MAX_MULTIPLE} times from the first call,
 * a second of calls was in flight before the first refusal (the simulator's short-horizon limit:
 * 84–100 throttles in {@code minute-boundary-burst}); a first step at {@value #RAMP_MULTIPLE} times
 * for {@value #RAMP_MILLIS} ms lets the bank's first refusal withdraw it before the pace rises
 * (19–35). Why the bound after a quick call: the window keeps spending its own minute beside the
 * bank, and a bank spent up front leaves a bucket no room for that; without the bound one throttle
 * under the token bucket withdrew the bank and the bucket model with it
 * ({@code claude-burndown-overreserved} 1.005× → 1.53× the oracle).
 *
 * <p>Load states: <b>even</b> (the episode opened early in its minute, or none is open);
 * <b>ramping</b> and <b>quick</b> (the allotment going); <b>spent</b> (the allotment gone: the
 * bank at its even rate, bounded as above once a call went quickly). What settled calls give back
 * goes to the bank ({@link BankedCapacity}) at its even rate, not to the allotment: the ledger's
 * bound, not the allotment, ends the quick calls where reservations are well above use. A
 * successor resumes all of it ({@link PacerState.QuickBankState}).
 */
final class QuickBank {

    static final long TURN_MARGIN_MILLIS = 10_000;
    static final double QUICK_FROM = 2.0;
    static final double MAX_MULTIPLE = 16.0;
    static final double RAMP_MULTIPLE = 4.0;
    static final long RAMP_MILLIS = 2_000;
    private static final long MINUTE_MILLIS = 60_000;

    private double pace = 1.0;
    private double left;
    private long firstQuickAt = Long.MIN_VALUE;
    private boolean spent;

    /** An episode with share {@code share} of the target opened: decides its pace. */
    void opened(double share, double target, long nowMillis) {
        long toTurn = MINUTE_MILLIS - Math.floorMod(nowMillis, MINUTE_MILLIS) - TURN_MARGIN_MILLIS;
        double needed = toTurn <= 0 ? MAX_MULTIPLE : share * MINUTE_MILLIS / toTurn;
        pace = needed <= QUICK_FROM ? 1.0 : Math.min(MAX_MULTIPLE, needed);
        left = share * target;
        firstQuickAt = Long.MIN_VALUE;
        spent = false;
    }

    /**
     * The multiple of the target rate a banked call of normalised {@code cost} goes at, booked
     * now: quick while the allotment lasts and {@code withinQuota} (the ledger with the call).
     */
    double spend(double cost, boolean withinQuota, long nowMillis) {
        boolean quick = pace > 1.0 && left > 0 && withinQuota;
        left -= cost;
        if (!quick) {
            return 1.0;
        }
        if (firstQuickAt == Long.MIN_VALUE) {
            firstQuickAt = nowMillis;
        }
        spent = true;
        return nowMillis - firstQuickAt < RAMP_MILLIS ? Math.min(pace, RAMP_MULTIPLE) : pace;
    }

    /** Whether a call went quickly this episode: the bank's calls are then bounded by the episode's bucket. */
    boolean spentQuickly() {
        return spent;
    }

    PacerState.QuickBankState export() {
        return new PacerState.QuickBankState(pace, Math.max(0.0, left),
                firstQuickAt == Long.MIN_VALUE ? PacerState.NEVER : firstQuickAt, spent);
    }

    /** Continues a predecessor's open episode (the bank restores it only if one is open). */
    void restore(PacerState.QuickBankState state) {
        pace = state.pace();
        left = state.left();
        firstQuickAt = state.firstQuickAtMillis() == PacerState.NEVER ? Long.MIN_VALUE : state.firstQuickAtMillis();
        spent = state.spent();
    }
}
