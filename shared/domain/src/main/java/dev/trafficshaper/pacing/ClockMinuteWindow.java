package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.QuotaDimension;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Whether the meter is a fixed clock-minute window, learnt from the calls on which such a window and
 * the sliding 60 s window disagree, and, once that is shown, the clock minute as the window bound.
 *
 * <p>Why: a fixed window resets at each clock minute ({@code floorDiv(now, 60 000)}): what a call
 * reserved in minute m stays in m (refunded only if it settles within m), and minute m + 1 starts at
 * zero. So such a meter lets a burst spend what is left of the current minute and then the next
 * minute in full, and a call straddling the turn costs the new minute nothing; the sliding window
 * ({@link SlidingWindowLedger}) holds both against the calls after them for 60 s. It is the right
 * bound when nothing is known, and the pacer cannot assume a fixed window: a sliding window or a
 * token bucket throttles what a fixed window lets through. So the pacer keeps, beside its ledger,
 * what its own calls charge the current clock minute under fixed-window rules, and lets the
 * meter's answers decide:
 *
 * <pre>
 *   account(m) per dimension = Σ reservations admitted in m
 *                              + Σ (actual − reserved) of them settled (or released) in m
 *                              + Σ max(0, actual − reserved) of earlier minutes' calls settled in m
 *                              + Σ reservations admitted in the last g of m − 1 (a call may
 *                                reach the meter a dispatch later than the pacer sent it), each
 *                                down to its actual usage once it ends (m refunded it, or the
 *                                meter charged it to m − 1); g = the longest the latest calls
 *                                of its way took to reach the meter + 250 ms, at most 2 s, the
 *                                dispatched way's until the drainer starts it itself ({@link TurnGuard})
 *   bucket bound b (per dimension): the most a token bucket of the quota, refilled at the quota
 *       per minute and refunded at settlement, could hold: full at the start, − each reservation,
 *       + each refund; a throttle in m while account(m) > level × quota / 1.1 (the account
 *       explains it) sets b ≤ 0.1 × c (the bucket held less than the refused call, by the
 *       estimates' error)
 *   level: the share of the quota at which the meter last refused the pacer's own load, as
 *       the refusals before this one showed it ({@link ThrottleFeedback}'s ceiling: the strict
 *       window's fill at the refusal, at most the target then; never under the minimum target;
 *       1 before any refusal): load the pacer cannot see takes the rest of each window
 *   decisive call:  account(m) + c ≤ level × quota  while  ledger(60 s) + c > 1.1 × level × quota
 *                   (a fixed window of level × quota takes it, a sliding one does not)
 *       it proves if also b − c < −0.1 × quota (no such bucket takes it either), once settled
 *       throttled → contradiction: trust withdrawn (calls sent before that are the same answer);
 *                   at the {@value #GIVE_UP_AFTER}nd, off for good
 *   trusted, level < 1: a throttle of a call sent with account(m) > level × quota / 1.1 (the
 *       account when it went, not with the calls sent since) is no contradiction but the minute
 *       full where the other load left it this minute: the target answers it, at the account's
 *       fill, and a call only the minute sent is booked in headroom's budget (a sliding window
 *       refuses a trusted minute early, its 60 s full, the account nearly empty: withdrawn)
 *   the turn: after a throttle the account explains in m, minute m + 1 is a probe minute: the
 *       learner acts as if trusted, one call past the sliding bound at a time until one settles
 *       (doubling the spacing only from then), then within any refusal time r at most as many as
 *       went before it unrefused (so the count doubles each r; r = the longest a throttle took to
 *       come back, at least 1 s, at most 5 s); if the minute's account then holds the
 *       queue back (the turn took a whole minute at twice the rate, unthrottled), trusted from m + 2,
 *       if level < 1 only once one of its calls past the bound was decisive and went through
 *       (settled, or answered by time; a sliding window takes a held minute below the quota
 *       when the level is low, the refusal that set it not the window's);
 *       a probe minute that sent nothing past the sliding bound (the budget had no room) leaves the
 *       probe owed: the next minute is the probe minute instead; while the meter is proven to
 *       bank ({@link RefundingBucket#proven}) no probe minute acts, and an owed one waits
 *   long calls (the last call to settle took over 30 s: a probe call seldom settles in its minute):
 *       a probe call out longer than r went through (answered by time, counted as taken); the
 *       turn then trusts only if one of those was decisive (a sliding window whose minute before
 *       left it room takes the others too); while such a probe is owed headroom does not step, so
 *       the budget's one throttle in 10 minutes is the learner's, not the lift's
 *   minute fit: account(m) + c ≤ (target + lift) × quota ? now : start of m + 1
 *       (while acting, headroom steps the lift rather than forgiveness: the account binds, not the open calls)
 *   unproven:  the minute fit sends nothing outside a probe minute
 *   trusted: fit = minute fit (the sliding fit neither sends past it nor holds back what it takes),
 *              while headroom's budget has room; without room the strict sliding fit alone
 *   probing: fit = min(sliding fit, minute fit), while headroom's budget has room;
 *              the spacing charges at {@value #RATE_MULTIPLE} × the target rate (outside a bank's
 *              episode, which adds its own 1×), so a minute's quota takes at least 30 s: never a clump
 *   quick turn (trusted, outside a bank's episode): the spacing charges at {@value #QUICK_RAMP_MULTIPLE}
 *              × for {@value #QUICK_RAMP_MILLIS} ms from the minute's first quick call, then at
 *              {@value #QUICK_MULTIPLE} ×; once a trusted minute's quick calls went unrefused, at
 *              twice the share of the quota the densest second of them showed, at most
 *              {@value QuickPace#MOST_MULTIPLE} ×, no ramp ({@link QuickPace}); a throttle of a quick call is
 *              the pace's (a sub-second limit), not the account's: the trust stays, the minute waits
 *              {@value #QUICK_ECHO_MILLIS} ms, and from then on (and for a successor) spends at
 *              {@value #RATE_MULTIPLE} ×; throttles of calls sent quickly (the minute's first
 *              excepted: it waited for the turn) that the account does not explain, or of calls the
 *              minute sent in the refusal time before that answer or the {@value #QUICK_ECHO_MILLIS} ms
 *              after it, are its answer (booked in the budget, nothing else)
 *   a throttle of a call only the minute fit sent is the learner's, booked in headroom's budget
 * </pre>
 *
 * Why the quick turn: once the clock minute is shown, what it has not taken by its turn is lost,
 * and the oracle spends each turn in one clump; at twice the even rate the shaper took 30 s for a
 * minute the oracle sent at once, so a drain that fits the oracle's last minute ended up to 30 s
 * after it (fixed-window {@code extreme-spike}, seeds 45–50: 1.101–1.106× the oracle, now
 * 1.020–1.021×). The pace is {@link QuickBank}'s, ramp included, so that a sub-second limit's
 * first refusal comes back while few calls are on their way; holding the minute for its horizon
 * after that lets the quick calls leave it before the minute sends again (without the pause, the
 * next calls at twice the rate were refused too, and withdrew the trust). Over seeds 42–51 the
 * fixed window's runs above 1.10× the oracle went 22 → 16 of 160 and those slower than
 * {@code sdk-adaptive} 30 → 13 of 100 (mean 1.048× → 1.032×), no run slower by more than 0.01×;
 * with the simulator's short-horizon limit on, 95 more throttles in the 48 runs of seed 42, at
 * most 1.004 calls per request. (The pacer spends the turn at twice the even rate while
 * {@link BunchingGuard} holds a sub-second limit off: the quick turn would meet it.)
 *
 * A throttle of a call the minute's account had room for, sent on the sliding window or the bank,
 * is a contradiction too when it was decisive; any other throttle is not the learner's to answer.
 * Why the refused level: with a quarter of the quota taken by load the pacer cannot see
 * ({@code background-quarter}), the meter refuses with the pacer's account at 0.75 of the quota,
 * which the quota alone never explains, so a fixed window was never learnt and the pacer spent
 * every minute evenly. Its last minute then took the whole minute where the oracle sends it at the
 * turn: fixed-window {@code background-quarter} drained 1.10–1.11× the oracle in six seeds of
 * ten (seed 43: 606.7 s against 547.0 s, each minute within 1% of the oracle's 3.0M). Read
 * against the level, the minute is trusted from the third: seed 46 603.9 s → 571.0 s (1.105× →
 * 1.045×, ahead of {@code sdk-adaptive}'s 574.6 s), seeds 48 and 50 likewise. At seeds 43, 47
 * and 51 a refusal at a trusted minute's end (the target 0.995 × the level, the edge that minute
 * a little under it) withdrew the trust twice and they stayed at 1.10×; answered by the target
 * at the account's fill instead (the level it sets is then where the minute's account stood, not
 * the 60 s window's), every seed of the ten is within 1.05× (seed 43 606.7 s → 571.5 s, seed 42
 * 1.034× → 1.014×), at most 1.0085 calls per request. A falsely trusted sliding window whose
 * minutes are all spent from their turns refuses late in them too and keeps the trust; it then
 * costs throttles, not drain time, and the decisive call below guards the trust's start.
 * Requiring a decisive call below the quota: without it a level set by another refusal (the fill of an RPM-bound window) let a
 * sliding window hold a probe minute, and the quick turn was refused in a clump (sliding
 * {@code rpm-bound-small}, pessimistic deployment: 151 → 270 throttles; with it 133). It does not
 * guard against a level gone stale by more than the 10% margin.
 *
 * Why no probe minute under a proven bucket: the refunding bucket's model has seen the meter take a
 * call that neither a sliding nor a fixed window of the quota takes, so the meter is no fixed
 * window, and a probe minute after the bucket's refusal only meets the same refusal (token-bucket
 * {@code background-quarter}: two probe minutes, each withdrawn; at seed 42 564.8 s → 563.6 s and
 * 48 → 38 throttles without them, no other run of the sweep moved).
 *
 * Why the bucket bound: a refunding token bucket takes a burst past the sliding bound as a fixed
 * window does (a full bucket, refunds coming back), so such an acceptance alone proved nothing and
 * the learner trusted token buckets (2 throttles in {@code seed-burst}). A fixed window shows
 * itself at the turn: refused late in m as its account says, then taking a whole minute from the
 * turn. A sliding window refuses the probe's first call past its bound (one throttle, in the
 * budget); a bucket that takes the turn lets the pacer spend it too, and its first refusal
 * withdraws the trust.
 *
 * <p>Load states: <b>off</b> (headroom off: the strict bound, bit for bit; or given up);
 * <b>unproven</b> (watching the calls the bank and headroom send past the quota); <b>probing</b> (the minute
 * after an explained throttle); <b>trusted</b> (the clock minute bounds the window). Across a
 * handoff the successor resumes the withdrawals, the trust, the current minute's account and the
 * probe owed, with what it knows of the calls' length and the refusal time, and whether and when
 * the quick pace was refused ({@link PacerState.ClockMinuteState}: a successor resumed within the
 * refusal's pause waits it out); a probe minute under way is owed to the next minute. The turn
 * guard's span ({@link TurnGuard}) is learnt afresh; the refused level is
 * {@link ThrottleFeedback}'s ceiling, which the successor resumes.
 */
final class ClockMinuteWindow {

    static final long MINUTE_MILLIS = 60_000;
    static final double RATE_MULTIPLE = 2.0;
    static final double QUICK_MULTIPLE = 16.0;
    static final double QUICK_RAMP_MULTIPLE = 4.0;
    static final long QUICK_RAMP_MILLIS = 2_000;
    /** How long after the quick pace's refusal a sub-second limit may still hold its calls. */
    static final long QUICK_ECHO_MILLIS = BunchingGuard.HORIZON_MILLIS;
    static final int GIVE_UP_AFTER = 2;
    /** How far past the quota the ledger must be for a call to tell the meters apart (estimates err). */
    static final double DECISIVE = 1.1;
    /**
     * A call admitted this close before a turn may reach the meter after it, for the bucket model's
     * proof ({@link RefundingBucket}); the account counts a call in both minutes within the span its
     * {@link TurnGuard} learnt, this until it knows.
     */
    static final long TURN_GUARD_MILLIS = TurnGuard.DEFAULT_MILLIS;
    /** The least and the most time the learner allows a refusal to come back in. */
    static final long DEFAULT_REFUSAL_MILLIS = 1_000;
    static final long MAX_REFUSAL_MILLIS = 5_000;

    /** Flags of an open admission the learner watches. */
    private static final int MINUTE_ONLY = 1;
    private static final int TELLS_APART = 2;
    /** Neither a sliding window nor a token bucket of the quota would take the call: its acceptance proves. */
    private static final int PROVES = 4;
    /** Sent at the trusted minute's quick pace. */
    private static final int QUICK = 8;

    /** A watched admission: its flags, and the minute's account (share of the quota, fullest dimension) when it went. */
    private record Watch(int flags, double accountWhenSent) {
        boolean has(int flag) {
            return (flags & flag) != 0;
        }
    }

    private final boolean enabled;
    private int withdrawals;
    private boolean trusted;
    private long withdrawnAt = Long.MIN_VALUE;
    private long minute = Long.MIN_VALUE;
    private long[] used;
    /** What calls admitted in the current minute's last {@link TurnGuard#millis} reserved. */
    private long[] late;
    /** The open calls booked in {@link #late}: they count in the minute after theirs too, until they end. */
    private final Set<Admission> lateCalls = Collections.newSetFromMap(new IdentityHashMap<>());
    /**
     * How long before a turn a call may still reach the meter after it: by the way a call goes
     * whose way is not known yet (dispatched: the refunding bucket's span, learnt from dispatched
     * calls' starts, at most {@link #TURN_GUARD_MILLIS}), and, once the drainer starts it itself,
     * by that way (learnt here from its calls' answers).
     */
    private final LongSupplier dispatchSpan;
    private final TurnGuard inlineGuard = new TurnGuard();
    /** The open calls the drainer made itself, with when each started. */
    private final Map<Admission, Long> startedHere = new IdentityHashMap<>();
    private final Map<Admission, Watch> watched = new IdentityHashMap<>();
    private long throttles;
    /**
     * Per dimension, the most a token bucket of one minute's quota, refilled at the quota per
     * minute and refunded at settlement, could hold now, given what the pacer's own calls took.
     */
    private double[] bucketBound;
    private long bucketAt = Long.MIN_VALUE;
    /** The minute after a throttle the minute's account explained: the learner tries the turn. */
    private long probeMinute = Long.MIN_VALUE;
    /** Whether the probe minute's account held the queue back (it spent the minute from its turn). */
    private boolean probeHeld;
    /** The probe minute's calls past the sliding bound not yet answered, with the time each was sent. */
    private final Map<Admission, Long> probeCalls = new IdentityHashMap<>();
    /** How many of them settled (the meter took them). */
    private int probesTaken;
    /** Whether the probe minute sent a call past the sliding bound; if not, the probe moves to the next minute. */
    private boolean probeSent;
    /** Whether the last call to settle took more than half a minute: a probe call seldom settles in its minute. */
    private boolean longCalls;
    /** Whether a probe call of this minute was answered by time, and whether one of those was decisive. */
    private boolean probeByTime;
    private boolean probeDecisive;
    /** How long the meter took to refuse a call, at the most, of those seen: a call older than that went through. */
    private long refusalMillis = DEFAULT_REFUSAL_MILLIS;
    /** Whether the meter refused a call sent at the quick pace: a sub-second limit, so twice the even rate. */
    private boolean quickRefused;
    /** When the quick pace was refused ({@code Long.MIN_VALUE}: not, or not known), here or by a predecessor. */
    private long quickRefusedAt = Long.MIN_VALUE;
    /** The clock minute of the latest quick call, and when that minute's first quick call went. */
    private long quickMinute = Long.MIN_VALUE;
    private long quickFrom;
    /** The pace the trusted minute's turn goes at, raised where the meter took it. */
    private final QuickPace quickPace = new QuickPace();
    /** When this learner resumed a predecessor's state ({@code Long.MIN_VALUE}: it did not). */
    private long resumedAt = Long.MIN_VALUE;
    /**
     * The share of the quota at which the meter last refused the pacer's own load (1 before any
     * refusal): where its window is full for this pacer, load it cannot see taking the rest. Read
     * when needed, so a throttle is explained by the refusals before it, never by itself.
     */
    private final DoubleSupplier refusedLevel;

    /**
     * Whether the meter is proven to bank ({@link RefundingBucket#proven}): it took a call that
     * neither a sliding nor a fixed window of the quota would take, so no probe minute acts.
     */
    private final BooleanSupplier meterBanks;

    /** A learner that takes every call to need {@link #TURN_GUARD_MILLIS} to reach the meter until the drainer starts it. */
    ClockMinuteWindow(PacerSettings settings) {
        this(settings, () -> TURN_GUARD_MILLIS, () -> 1.0, () -> false);
    }

    /**
     * {@code dispatchSpan}: how long a dispatched call may take from its admission to the meter;
     * {@code refusedLevel}: the share of the quota at which the meter last refused the pacer (≤ 1);
     * {@code meterBanks}: whether the meter is proven to bank, so that it is no fixed window.
     */
    ClockMinuteWindow(PacerSettings settings, LongSupplier dispatchSpan, DoubleSupplier refusedLevel,
            BooleanSupplier meterBanks) {
        this.enabled = settings.headroom();
        this.dispatchSpan = dispatchSpan;
        this.refusedLevel = refusedLevel;
        this.meterBanks = meterBanks;
    }

    boolean trusted() {
        return trusted;
    }

    /**
     * Whether the clock minute bounds the window now: trusted, or trying the turn after an explained
     * throttle (not while the meter is proven to bank: the probe stays owed).
     */
    boolean acting(long nowMillis) {
        boolean probing = Math.floorDiv(nowMillis, MINUTE_MILLIS) == probeMinute && !meterBanks.getAsBoolean();
        return !off() && (trusted || probing);
    }

    /** Whether a call sent at {@code atMillis} may reach the meter after the clock minute's turn. */
    static boolean nearTurn(long atMillis) {
        return TurnGuard.nearTurn(atMillis, TURN_GUARD_MILLIS);
    }

    /** Whether the learner owes a probe its calls cannot answer by settling within the minute. */
    boolean probeOwed(long nowMillis) {
        return longCalls && !off() && !trusted && probeMinute >= Math.floorDiv(nowMillis, MINUTE_MILLIS)
                && !meterBanks.getAsBoolean();
    }

    /** Whether a trusted minute is spent at the quick pace from its turn (never refused there). */
    boolean quickTurn() {
        return trusted && !quickRefused && !off();
    }

    /**
     * The first moment after {@code nowMillis} that is the last before a turn at which a call the
     * drainer starts itself counts in the minute it leaves only: the turn less the inline way's
     * guard ({@link TurnGuard}), less a millisecond.
     */
    long lookBeforeTurn(long nowMillis) {
        long turn = (Math.floorDiv(nowMillis, MINUTE_MILLIS) + 1) * MINUTE_MILLIS;
        long look = turn - inlineGuard.millis() - 1;
        return look > nowMillis ? look : look + MINUTE_MILLIS;
    }

    /** Whether the learner has given up: the meter is not a fixed clock-minute window. */
    boolean off() {
        return !enabled || withdrawals >= GIVE_UP_AFTER;
    }

    /** Throttles the learner answered. */
    long throttles() {
        return throttles;
    }

    /**
     * The earliest time the clock minute takes the call, or {@code slidingFit} when the minute may
     * not be used now; {@code slidingFit} when it is earlier, unless trusted: then the minute's
     * account alone (a call the sliding fit would send past it waits for the turn).
     */
    long windowFit(DimensionBudget[] budgets, long[] amounts, double target, long slidingFit, boolean budgetRoom,
            long nowMillis) {
        if (off()) {
            return slidingFit;
        }
        if (trusted && budgetRoom) {
            // the clock minute is the window: it alone bounds the call, also where the sliding fit
            // (open calls forgiven, the lift) would send past the minute's account; fits rolls the minute
            long fit = fits(budgets, amounts, target, nowMillis) ? nowMillis : (minute + 1) * MINUTE_MILLIS;
            // a refused quick pace: nothing more until the sub-second horizon has let its calls go
            return quickRefusedAt == Long.MIN_VALUE ? fit : Math.max(fit, quickRefusedAt + QUICK_ECHO_MILLIS);
        }
        if (slidingFit <= nowMillis || !budgetRoom) {
            return slidingFit;
        }
        roll(budgets, nowMillis); // first: a probe still owed moves to this minute
        if (!acting(nowMillis)) {
            return slidingFit;
        }
        if (!trusted && !probeMayGo(nowMillis)) {
            return slidingFit;
        }
        if (fits(budgets, amounts, target, nowMillis)) {
            return nowMillis;
        }
        probeHeld |= minute == probeMinute;
        return Math.min(slidingFit, (minute + 1) * MINUTE_MILLIS);
    }

    /**
     * Whether another call past the sliding window may go in an unproven probe minute: one at a time
     * until one settles, then as many in the last refusal time as went before it unrefused (the count
     * doubles each refusal time), so a sliding window's first refusal meets about as many calls as it
     * had taken, not all those a doubled spacing sends before the answer comes back.
     */
    private boolean probeMayGo(long nowMillis) {
        if (longCalls) {
            // a call out longer than a refusal takes to come back went through: the meter took it
            // (the turn then proves only if one of them was decisive: a sliding window whose minute
            // before left it room takes the others too)
            probeCalls.entrySet().removeIf(call -> {
                boolean answered = call.getValue() <= nowMillis - refusalMillis;
                if (answered) {
                    probesTaken++;
                    probeByTime = true;
                    Watch watch = watched.get(call.getKey());
                    probeDecisive |= watch != null && watch.has(TELLS_APART);
                }
                return answered;
            });
        }
        if (probesTaken == 0) {
            return probeCalls.isEmpty();
        }
        long recent = 0;
        for (long sentAt : probeCalls.values()) {
            if (sentAt > nowMillis - refusalMillis) {
                recent++;
            }
        }
        return recent < probesTaken + (probeCalls.size() - recent);
    }

    /** The current minute's account as a share of the quota, in its fullest dimension (0 before any call). */
    double accountFill(DimensionBudget[] budgets, long nowMillis) {
        if (used == null || Math.floorDiv(nowMillis, MINUTE_MILLIS) != minute) {
            return 0.0;
        }
        return accountShare(budgets);
    }

    /** A call's share of the quota, in its fullest dimension. */
    private static double share(DimensionBudget[] budgets, long[] amounts) {
        double share = 0;
        for (int i = 0; i < budgets.length; i++) {
            share = Math.max(share, (double) amounts[i] / budgets[i].quotaPerMinute());
        }
        return share;
    }

    private double accountShare(DimensionBudget[] budgets) {
        return share(budgets, used);
    }

    /** Whether the current minute's account takes the call under (target + lift) × quota. */
    boolean fits(DimensionBudget[] budgets, long[] amounts, double target, long nowMillis) {
        roll(budgets, nowMillis);
        for (int i = 0; i < budgets.length; i++) {
            long limit = budgets[i].windowLimit(target);
            if (used[i] + amounts[i] > Math.max(limit, amounts[i])) { // an oversize call fits an empty minute
                return false;
            }
        }
        return true;
    }

    /**
     * The multiple of the target rate the spacing charges at: 1 unless the minute spends outside a
     * bank's episode; {@value #RATE_MULTIPLE} in a probe minute, or once the quick pace was refused;
     * trusted, {@value #QUICK_MULTIPLE} ({@value #QUICK_RAMP_MULTIPLE} within
     * {@value #QUICK_RAMP_MILLIS} ms of the minute's first quick call), or the pace a quick turn the
     * meter took raised it to ({@link QuickPace}).
     */
    double spacingMultiple(boolean banking, long nowMillis) {
        boolean spends = trusted || (acting(nowMillis) && probesTaken > 0); // a probe minute once its first call went
        if (!spends || off() || banking) {
            return 1.0;
        }
        if (!trusted || quickRefused) {
            return RATE_MULTIPLE;
        }
        if (quickPace.shown()) {
            return quickPace.pace();
        }
        boolean ramping = quickMinute != Math.floorDiv(nowMillis, MINUTE_MILLIS) || nowMillis - quickFrom < QUICK_RAMP_MILLIS;
        return ramping ? QUICK_RAMP_MULTIPLE : QUICK_MULTIPLE;
    }

    /**
     * Books an admission in the minute's account (after the budgets booked it in their ledgers),
     * watching it if only the minute sent it or it is decisive.
     */
    void admitted(Admission admission, DimensionBudget[] budgets, long[] amounts, boolean minuteOnly, boolean quick,
            long nowMillis) {
        if (off()) {
            return;
        }
        roll(budgets, nowMillis);
        boolean bunched = quick && quickMinute == minute; // the minute's first quick call waited for the turn
        if (quick && quickMinute != minute) {
            quickMinute = minute;
            quickFrom = nowMillis;
        }
        if (quick) {
            quickPace.sent(nowMillis, share(budgets, amounts));
        }
        refill(budgets, nowMillis);
        // its way is not known yet: the dispatched way's span
        boolean beforeTurn = TurnGuard.nearTurn(nowMillis, Math.min(TURN_GUARD_MILLIS, dispatchSpan.getAsLong()));
        if (beforeTurn) {
            lateCalls.add(admission);
        }
        boolean minuteHasRoom = true;
        boolean slidingFull = false;
        boolean neitherTakesIt = false;
        double level = refusedLevel.getAsDouble();
        for (int i = 0; i < budgets.length; i++) {
            long quota = budgets[i].quotaPerMinute();
            minuteHasRoom &= used[i] + amounts[i] <= level * quota;
            boolean slidingRefuses = budgets[i].windowSum(nowMillis) > DECISIVE * level * quota;
            boolean bucketRefuses = bucketBound[i] - amounts[i] < -(DECISIVE - 1) * quota;
            slidingFull |= slidingRefuses;
            neitherTakesIt |= slidingRefuses && bucketRefuses;
            bucketBound[i] -= amounts[i];
            used[i] += amounts[i];
            if (beforeTurn) {
                late[i] += amounts[i];
            }
        }
        boolean tellsApart = minuteHasRoom && slidingFull;
        int flags = (minuteOnly ? MINUTE_ONLY : 0) | (tellsApart ? TELLS_APART : 0)
                | (minuteHasRoom && neitherTakesIt ? PROVES : 0) | (bunched ? QUICK : 0);
        if (flags != 0) {
            watched.put(admission, new Watch(flags, accountShare(budgets)));
        }
        if (minuteOnly && !trusted && minute == probeMinute) {
            probeCalls.put(admission, nowMillis);
            probeSent = true;
        }
    }

    /**
     * Books an admission's outcome: {@code deltas} (actual − reserved per budget) against the
     * minute it was admitted in if that is the current one, else only what it used beyond its
     * reservation. A decisive call that settled is the evidence the learner waits for.
     */
    void corrected(Admission admission, DimensionBudget[] budgets, long[] deltas, boolean settled, long nowMillis) {
        if (!enabled) {
            return;
        }
        roll(budgets, nowMillis);
        refill(budgets, nowMillis);
        long admittedMinute = Math.floorDiv(admission.admittedAtMillis(), MINUTE_MILLIS);
        boolean sameMinute = admittedMinute == minute;
        // a call admitted just before a turn counts in the next minute too, until it ends: then at
        // most its actual usage (the next minute charged it its reservation and refunded the rest, or
        // never saw it)
        boolean sentLate = lateCalls.remove(admission);
        startedHere.remove(admission);
        boolean carried = sentLate && admittedMinute == minute - 1;
        for (int i = 0; i < budgets.length; i++) {
            if (sameMinute || carried || deltas[i] > 0) {
                used[i] += deltas[i];
            }
            if (sameMinute && sentLate) {
                this.late[i] += deltas[i];
            }
            bucketBound[i] = Math.min(budgets[i].quotaPerMinute(), bucketBound[i] - deltas[i]);
        }
        if (settled) {
            longCalls = nowMillis - admission.admittedAtMillis() > MINUTE_MILLIS / 2;
        }
        boolean probe = probeCalls.remove(admission) != null && settled;
        if (probe) {
            probesTaken++; // it settled: the meter took it
        }
        Watch watch = watched.remove(admission);
        probeDecisive |= probe && watch != null && watch.has(TELLS_APART);
        if (settled && watch != null && watch.has(PROVES) && admission.admittedAtMillis() > withdrawnAt
                && !off()) {
            trusted = true;
        }
    }

    /**
     * The drainer started the call of {@code admission} itself, now: booked as possibly late by the
     * dispatched way's span, it is no longer once the span its own calls showed puts it before the
     * turn ({@code amounts} is what its admission booked).
     */
    void started(Admission admission, long[] amounts, long nowMillis) {
        if (!enabled) {
            return;
        }
        startedHere.put(admission, nowMillis);
        boolean sameMinute = used != null && Math.floorDiv(admission.admittedAtMillis(), MINUTE_MILLIS) == minute
                && Math.floorDiv(nowMillis, MINUTE_MILLIS) == minute;
        if (sameMinute && !inlineGuard.nearTurn(nowMillis) && lateCalls.remove(admission)) {
            for (int i = 0; i < late.length; i++) {
                late[i] -= amounts[i];
            }
        }
    }

    /**
     * The call the drainer made itself for {@code admission} had reached the meter by
     * {@code reachedByMillis}: how long such calls take from their start bounds which of them may
     * reach it after a turn ({@link TurnGuard}).
     */
    void reached(Admission admission, long reachedByMillis) {
        Long startedAt = enabled ? startedHere.get(admission) : null;
        if (startedAt != null) {
            inlineGuard.reached(startedAt, reachedByMillis);
        }
    }

    /** Who answers a throttle ({@link #throttled}). */
    enum Answer {
        /** Not the learner's: the other learners, headroom or the target answer it. */
        NONE,
        /** The learner's own (only the minute sent it): booked in headroom's budget. */
        LEARNER,
        /** The quick turn's: it falls to twice the even rate; booked in the budget, nothing else. */
        QUICK_PACE,
        /**
         * A trusted minute below the quota, full for this pacer: the target answers it at the
         * minute account's fill ({@link #accountFill}); the trust stays.
         */
        FULL_MINUTE,
        /** The same for a call only the minute sent: booked in headroom's budget too. */
        FULL_MINUTE_EXTRA;

        /** Whether the minute was full for this pacer: the target answers. */
        boolean fullMinute() {
            return this == FULL_MINUTE || this == FULL_MINUTE_EXTRA;
        }
    }

    /**
     * Bedrock throttled an admission; call before its release is booked. Returns who answers it:
     * the quick pace, for a call sent quickly (not the minute's first) that the account does not
     * explain, or a call the minute sent in the refusal time before that answer or the second after
     * it; the learner, for a call only the minute sent; otherwise nobody here. A decisive call's
     * throttle withdraws the trust whoever sent it.
     */
    Answer throttled(Admission admission, DimensionBudget[] budgets, long[] amounts, long nowMillis) {
        boolean explained = tighten(budgets, amounts, nowMillis);
        if (enabled) {
            refusalMillis = Math.max(refusalMillis, Math.min(MAX_REFUSAL_MILLIS, nowMillis - admission.admittedAtMillis()));
        }
        if (Math.floorDiv(admission.admittedAtMillis(), MINUTE_MILLIS) == minute) {
            quickPace.refused(); // a minute with a refused call shows no pace
        }
        Watch watch = watched.remove(admission);
        if (explained && !trusted && !off() && (watch == null || !watch.has(MINUTE_ONLY))) {
            probeMinute = minute + 1;
        }
        if (watch == null && predecessorsQuickCall(admission)) {
            throttles++; // the predecessor's quick calls met the refusal it handed over
            return Answer.QUICK_PACE;
        }
        if (watch == null) {
            return Answer.NONE;
        }
        int flags = watch.flags();
        if (answeredByQuickPace(admission, flags, explained)) {
            // the pace, not the account: the calls sent quickly before the answer, and those the
            // sub-second horizon still held the quick calls against, are its answer too
            if (!quickRefused) {
                quickRefused = true;
                quickRefusedAt = nowMillis;
            }
            throttles++;
            return Answer.QUICK_PACE;
        }
        boolean fresh = admission.admittedAtMillis() > withdrawnAt;
        boolean minuteOnly = (flags & MINUTE_ONLY) != 0;
        double level = refusedLevel.getAsDouble();
        if (trusted && level < 1.0 && watch.accountWhenSent() > level / DECISIVE) {
            // below the quota the minute is full where the meter refuses, the other load's share
            // varying: a fixed window refuses so late in a minute, a sliding one early (its 60 s
            // full, the account nearly empty); the target answers, at the account's fill. Read
            // where the account stood when the call went, not with the calls sent since.
            if (minuteOnly) {
                throttles++;
            }
            return minuteOnly ? Answer.FULL_MINUTE_EXTRA : Answer.FULL_MINUTE;
        }
        if (fresh && (minuteOnly || (flags & TELLS_APART) != 0)) {
            trusted = false;
            probeMinute = Long.MIN_VALUE;
            probeHeld = false;
            probeByTime = false;
            probeDecisive = false;
            probeCalls.clear();
            probesTaken = 0;
            withdrawals++;
            withdrawnAt = nowMillis;
            quickPace.withdrawn();
        }
        if (minuteOnly) {
            throttles++;
        }
        return minuteOnly ? Answer.LEARNER : Answer.NONE;
    }

    /**
     * Whether a call this learner does not watch was the predecessor's, sent in the refusal time
     * before the quick pace's refusal it handed over or in the pause after it: the same answer.
     */
    private boolean predecessorsQuickCall(Admission admission) {
        return trusted && admission.admittedAtMillis() < resumedAt && aroundQuickRefusal(admission);
    }

    private boolean answeredByQuickPace(Admission admission, int flags, boolean explained) {
        if ((flags & QUICK) != 0) {
            return !explained;
        }
        return (flags & MINUTE_ONLY) != 0 && aroundQuickRefusal(admission);
    }

    /** Whether the call went in the refusal time before the quick pace's refusal, or in the pause after it. */
    private boolean aroundQuickRefusal(Admission admission) {
        long admitted = admission.admittedAtMillis();
        return quickRefusedAt != Long.MIN_VALUE && admitted > quickRefusedAt - refusalMillis
                && admitted < quickRefusedAt + QUICK_ECHO_MILLIS;
    }

    PacerState.ClockMinuteState export(DimensionBudget[] budgets, long nowMillis) {
        if (!enabled) {
            return PacerState.ClockMinuteState.NONE;
        }
        if (used != null) {
            roll(budgets, nowMillis); // as the next call would: a probe still owed moves to this minute
        }
        Map<QuotaDimension, Long> account = new EnumMap<>(QuotaDimension.class);
        long start = PacerState.NEVER;
        if (used != null && minute == Math.floorDiv(nowMillis, MINUTE_MILLIS)) {
            start = minute * MINUTE_MILLIS;
            for (int i = 0; i < budgets.length; i++) {
                if (used[i] > 0) {
                    account.put(budgets[i].dimension(), used[i]);
                }
            }
        }
        long probe = probeMinute == Long.MIN_VALUE || probeMinute < Math.floorDiv(nowMillis, MINUTE_MILLIS)
                ? PacerState.NEVER : probeMinute * MINUTE_MILLIS;
        return new PacerState.ClockMinuteState(withdrawals, trusted, start, account, probe, longCalls,
                refusalMillis, withdrawnAt == Long.MIN_VALUE ? PacerState.NEVER : withdrawnAt, quickRefused,
                quickRefusedAt == Long.MIN_VALUE ? PacerState.NEVER : quickRefusedAt, quickPace.pace());
    }

    /** Continues from a predecessor's state; a strict pacer ignores it. */
    void restore(PacerState.ClockMinuteState state, DimensionBudget[] budgets, long nowMillis) {
        if (!enabled) {
            return;
        }
        withdrawals = state.withdrawals();
        trusted = state.trusted() && !off();
        withdrawnAt = state.withdrawnAtMillis() == PacerState.NEVER ? Long.MIN_VALUE : state.withdrawnAtMillis();
        longCalls = state.longCalls();
        quickRefused = state.quickRefused();
        quickPace.restore(state.quickPace());
        resumedAt = nowMillis;
        // the refusal's pause and echo go on in the successor (its own calls in them are the same answer)
        quickRefusedAt = state.quickRefusedAtMillis() == PacerState.NEVER ? Long.MIN_VALUE : state.quickRefusedAtMillis();
        refusalMillis = Math.max(DEFAULT_REFUSAL_MILLIS, Math.min(MAX_REFUSAL_MILLIS, state.refusalMillis()));
        if (state.probeMinuteStartMillis() != PacerState.NEVER && !trusted) {
            // a probe owed: the successor owes it. A probe minute under way moves to the next
            // minute: the turn is what it tries, and the predecessor's calls past the sliding bound
            // are not known here (probed from mid-minute it proved nothing and was spent)
            probeMinute = Math.max(Math.floorDiv(state.probeMinuteStartMillis(), MINUTE_MILLIS),
                    Math.floorDiv(nowMillis, MINUTE_MILLIS) + 1);
        }
        roll(budgets, nowMillis);
        if (state.minuteStartMillis() == minute * MINUTE_MILLIS) {
            for (int i = 0; i < budgets.length; i++) {
                used[i] = state.used().getOrDefault(budgets[i].dimension(), 0L);
            }
        }
    }

    /**
     * A throttle late in a minute whose account explains it bounds what a bucket held: less than
     * the call (by the estimates' error), on each dimension whose account is spent. Called before
     * the release gives the call's reservation back to the bound.
     */
    private boolean tighten(DimensionBudget[] budgets, long[] amounts, long nowMillis) {
        if (off() || used == null || Math.floorDiv(nowMillis, MINUTE_MILLIS) != minute) {
            return false;
        }
        refill(budgets, nowMillis);
        boolean explained = false;
        double level = refusedLevel.getAsDouble();
        for (int i = 0; i < budgets.length; i++) {
            if (used[i] > level * budgets[i].quotaPerMinute() / DECISIVE) {
                bucketBound[i] = Math.min(bucketBound[i], (DECISIVE - 1) * amounts[i]);
                explained = true;
            }
        }
        return explained;
    }

    private void refill(DimensionBudget[] budgets, long nowMillis) {
        if (bucketBound == null) {
            bucketBound = new double[budgets.length];
            for (int i = 0; i < budgets.length; i++) {
                bucketBound[i] = budgets[i].quotaPerMinute(); // nothing known: it may be full
            }
        } else if (nowMillis > bucketAt) {
            for (int i = 0; i < budgets.length; i++) {
                long quota = budgets[i].quotaPerMinute();
                bucketBound[i] = Math.min(quota, bucketBound[i] + (double) quota * (nowMillis - bucketAt) / MINUTE_MILLIS);
            }
        }
        bucketAt = Math.max(bucketAt, nowMillis);
    }

    private void roll(DimensionBudget[] budgets, long nowMillis) {
        long current = Math.floorDiv(nowMillis, MINUTE_MILLIS);
        if (used == null) {
            used = new long[budgets.length];
            late = new long[budgets.length];
            minute = current;
        } else if (current > minute) {
            boolean next = current == minute + 1;
            // below the quota a held minute alone proves nothing: a sliding window whose load left
            // since the level was learnt takes it too, so one of its calls must have told them apart
            boolean decisiveNeeded = probeByTime || refusedLevel.getAsDouble() < 1.0;
            if (minute == probeMinute && probeHeld && (!decisiveNeeded || probeDecisive) && !off()) {
                trusted = true; // the turn took a whole minute's account at twice the rate, unthrottled
            } else if (probeMinute >= minute && probeMinute < current && !probeSent && !trusted && !off()) {
                probeMinute = current; // nothing went past the sliding bound (no budget): the probe is still owed
            }
            quickPace.minuteEnded((minute + 1) * MINUTE_MILLIS, refusalMillis, quickTurn());
            probeSent = false;
            probeByTime = false;
            probeDecisive = false;
            probeHeld = false;
            probeCalls.clear();
            probesTaken = 0;
            for (int i = 0; i < used.length; i++) {
                used[i] = next ? late[i] : 0;
            }
            Arrays.fill(late, 0);
            minute = current;
        }
    }
}
