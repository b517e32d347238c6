package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.QuotaDimension;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A model of the meter as a token bucket refunded at settlement, fed with what the pacer itself
 * admits and sees settle, so that with headroom on the pacer spends what such a bucket holds rather
 * than what the 60 s window allows.
 *
 * <p>Why: where reservations dwarf use (long generations with a large {@code maxTokens}), a token
 * bucket runs at the rate of actual use once the refunds of the first calls come back, while the
 * window holds every open call at its whole reservation: 18 calls a minute where the bucket takes
 * up to 100 ({@code long-generations-split-tpm}). Forgiving the open calls' excess ({@link Headroom})
 * is the wrong shape for that meter: the bucket must fund the open calls' excess out of what it
 * has banked, so forgiving it overdraws the bucket in the ramp and the budget of extra calls runs
 * out long before the rate gets there. The model is that bucket, counted from the pacer's side:
 * every admission is charged at its reservation, and its refund is credited when the pacer learns
 * of the settlement, which is never before the meter booked it.
 *
 * <pre>
 *   per metered dimension, with s = the target share of the quota (lift included, at most 1):
 *     level ℓ starts at 0 (nothing assumed banked: a fresh pacer, or a successor whose
 *       predecessor's open calls it will never see settle), and is full (the quota) whenever
 *       nothing was charged in the last 60 s: a bucket not in debt then has refilled a quota since
 *     ℓ(t) = min(quota, ℓ(t₀) + r × quota × (t − t₀) / 60 s), r = s until the meter is proven to
 *       bank, then 1: below the proof it refills slower than the meter, so it is never fuller; it
 *       holds a whole quota, as the meter does, so a full bank is spent whole, not s of it
 *     held back h: grows by (1 − r) × quota × dt, at most the ceiling less ℓ (the meter holds no
 *       more than its cap), 0 whenever ℓ is full; once proven, ℓ gets h back, if h was counted from
 *       a level the meter could not be below: a fresh pacer's 0 (a bucket not in debt), or full; a
 *       successor resumed with the model's level counts from its next full
 *     every admission:  ℓ −= reservation
 *     its settlement:   ℓ += reservation − actual   (a release or a throttle: ℓ += reservation)
 *   a call the window holds back goes now if ℓ ≥ its reservation on every dimension (and the
 *     spacing and the bunching guard let it): the model pays for it
 *   trusted while headroom is on and the bank was never withdrawn ({@link BankedCapacity}: a meter
 *     that banks nothing is no bucket); a throttle of a call the model paid for withdraws the trust
 *     and is booked in headroom's budget of extra calls ({@link Headroom}); the trust comes back
 *     after 1 min, then 2 min, and only while the budget has room; after a third withdrawal the
 *     pacer takes the meter for no bucket. Until the first withdrawal the model pays while the
 *     budget has room for a probe throttle, or once the meter is proven to bank:
 *   proof: a call the meter took (it settled) whose admission left, on some dimension, the 60 s
 *     ledger above 1.1 × quota and, on some dimension, the clock minute's account above 1.1 × quota
 *       account(m) = Σ reservations admitted in m (not in its last 2 s, which may reach the meter
 *                    in m + 1) − Σ refunds of those settled in m: the least a fixed window holds
 *     neither a sliding nor a fixed window of the quota takes such a call (1.1: the estimates
 *     err), so of the meters the pacer must be safe under only a bucket is left, and a call the
 *     model pays for is no probe; a throttle of one sent without the budget's room and answered
 *     without it contradicts the proof for good and is the pacer's to answer as any unexpected
 *     throttle (the target's), not the budget's; one the budget had room for is booked there
 *   on its way: a call reaches the meter up to a span d after its charge, and a meter at its cap
 *     refills nothing meanwhile, so ℓ ≤ quota − (reservations charged in the last d and not yet
 *     settled or released), the refill applied piecewise as each leaves the span;
 *     d = the longest of the last {@value #LAGS} settled calls' start − admission (calls the drainer
 *     did not make itself), + {@value #LAG_MARGIN_MILLIS} ms
 *     (admissions booked ahead, clocks apart), at most {@value #MAX_LAG_MILLIS} ms, which it is
 *     until a call's start is known; a call the drainer makes itself is on its way no longer once
 *     it starts (a settlement or a release shows the same of any call); a successor counts its
 *     predecessor's open calls admitted within {@value #MAX_LAG_MILLIS} ms of the capture
 *   a call the drainer makes itself reaches the meter by its answer's arrival less the latency
 *     Bedrock reports (a cold client's first call took 656 ms in LocalRunIT): until then the model
 *     notes the most it stood above a meter at its cap that had not charged such calls,
 *       p = max over the call's first {@value #MAX_LAG_MILLIS} ms of ℓ + h − (ceiling − their charges)
 *     and at the answer gives back min(p, quota × lag / 60 s), from h first (a refusal or an end
 *     without an answer counts as arrived then; {@link UnansweredCalls})
 *   a settled call's refund went into the meter when it ended (its processor's clock, less
 *     {@value #LAG_MARGIN_MILLIS} ms), into a meter that may have reached its cap since: it is
 *     credited no more than the least room below its ceiling the model had since (remembered for
 *     {@value CeilingHistory#HISTORY_MILLIS} ms, none beyond); what a call the meter never charged gives back is
 *     measured from its admission, its own charge counted while on its way ({@link CeilingHistory})
 * </pre>
 *
 * Under a token bucket of at least the quota, refilled at the quota per minute, the model's level
 * is never above the meter's (each refill, refund and charge is applied to the meter no later and
 * to no smaller a cap, and no fuller than the quota less what may be on its way), but until a call
 * made in the drainer is answered, and by what the meter lost at its cap while such a call was late
 * and a refund unseen, so a call the model pays for is not throttled but for input read beyond its
 * estimate ({@code BucketModelInTransitPropertiesTest}, which measures both). Why the refill at the
 * quota once proven: at the target the model fell 165k tokens behind the meter in
 * {@code steady-spike}'s first minutes (0.95, and the lift's 50 s climb), which the spike then found
 * missing; with it the shaper drained slower than {@code sdk-adaptive} in 9 runs of 31 where that
 * kept 99% (14 before; seed 42), without a throttle. Why the answer's latency: with the refill at
 * the quota, the 0.05 of it the target had kept back no longer hid that a cold client's first call
 * reached the full meter 656 ms after the drainer marked it started, and {@code LocalRunIT}'s
 * meter refused a call the model paid for. Why the refund's end: the property test, once it
 * reached the proof, found refunds the meter booked at its cap seconds before the model saw them
 * (a model refilling at the target had hidden them). Why the span: a call
 * charged from a full model reaches a full meter a dispatch later, and the model, refilling from
 * the charge, stood above the meter by that dispatch's refill; with every call an asynchronous
 * invoke and 2 s cold starts ({@code --deployment pessimistic}) that was tens of thousands of
 * tokens (a review reproduced five such sequences on a 120k quota). A fixed 5 s span was sound but
 * slowed the calls-in-the-drainer deployment, whose calls start within milliseconds
 * (token-bucket {@code claude-burndown-overreserved} 1.009× → 1.031× the oracle).
 *
 * <p>Under a window meter the model's refunds are not given back, and its first paid call beyond
 * the window is throttled; with the bank's withdrawal as the gate that costs nothing where a
 * burst already showed the meter does not bank. Measured ({@code simulate --all --strict}, seed 42):
 * {@code long-generations-split-tpm} under the token bucket 2.15× → 1.22× the oracle with no
 * throttle while the first probe waited for the budget's room (100 calls, 4.4 minutes at the
 * strict pace after the bank's minute), 1.02× with the proof: the bank's minute took 34 calls of
 * 16,000 tokens in one clock minute against a 300k quota, and from their settlement at 61 s the
 * model pays; under the windows, where no burst withdrew the bank, a few throttles more a run.
 * No other run of the 48 changed with the proof.
 *
 * <p>Load states: <b>off</b> (headroom off: nothing is charged, the strict bound bit for bit);
 * <b>untrusted</b> (charged and credited, paying for nothing); <b>paying</b> (trusted, a call the
 * window holds back goes when the level covers it, within the budget or on the proof). A
 * successor resumes the proof, the trust and the level ({@link PacerState.BucketModelState}), and
 * credits its predecessor's open calls' refunds as it books their settlements.
 */
final class RefundingBucket {

    static final long RETRUST_MILLIS = 60_000;
    static final long MAX_RETRUST_MILLIS = 600_000;
    static final int GIVE_UP_AFTER = 3;
    /** How far past the quota both windows must be for a taken call to prove (estimates err). */
    static final double DECISIVE = ClockMinuteWindow.DECISIVE;
    /** The longest a charged call is taken to need to reach the meter, and the span until one has started. */
    static final long MAX_LAG_MILLIS = 5_000;
    /**
     * A call neither settled, released nor refused this long after its admission is not waited for
     * (one whose call timed out stays charged, and nothing more comes of it): longer than any call
     * (the Bedrock Processor cuts one at 10 minutes).
     */
    static final long FORGET_MILLIS = 15 * 60_000;
    /** Added to the longest lag seen: admissions are booked up to a lookahead early, and clocks differ. */
    static final long LAG_MARGIN_MILLIS = TurnGuard.MARGIN_MILLIS;
    /** How many of the latest calls' lags the span is the longest of. */
    static final int LAGS = TurnGuard.LAGS;

    private final boolean enabled;
    private final DimensionBudget[] budgets;
    private final long[] quotaPerMinute;
    private final long[] level;
    private final double[] remainder;
    /**
     * The charges that may still be on their way to the meter, oldest first (with those that left
     * early, until they reach the head), and the sum of those on their way per dimension.
     */
    private final ArrayDeque<Transit> transit = new ArrayDeque<>();
    private final long[] onTheWay;
    /** Each watched admission's charge while it may be on its way: its settlement or release shows it is not. */
    private final Map<Admission, Transit> transitOf = new IdentityHashMap<>();
    private Transit unclaimed;
    /** The span d: the latest dispatched calls' lags from admission to start. */
    private final TurnGuard span = new TurnGuard(MAX_LAG_MILLIS);
    /** Open calls the drainer made itself: their lags are not the span's. */
    private final Set<Admission> madeHere = Collections.newSetFromMap(new IdentityHashMap<>());
    private long updatedAt = Long.MIN_VALUE;
    /** What the model refilled less than the quota since it was last full (given back once proven). */
    private final double[] heldBack;
    /**
     * Whether what the model held back was counted from a level the meter could not be below (a
     * fresh pacer's 0, or full by what this pacer saw): only then is it in the meter's level. A
     * successor resumed with its predecessor's level counts from its next full.
     */
    private boolean anchored = true;
    private boolean resumedBlind;
    /** Calls the drainer made itself, until their answer says when they reached the meter. */
    private final UnansweredCalls unanswered = new UnansweredCalls();
    /** How close the model stood to its ceiling lately, for refunds the meter booked earlier. */
    private final CeilingHistory history = new CeilingHistory();
    /** {@link #notePeaks}'s reading, kept to spare an array at every refill (neither keeps it). */
    private final double[] aboveNow;
    private long forgotAt = Long.MIN_VALUE;
    /** When each settled call's refund went into the meter, at the earliest: until its refund is booked. */
    private final Map<Admission, Long> refundedFrom = new IdentityHashMap<>();
    /** The calls the model paid for, still open: whether headroom's budget had room when each went. */
    private final Map<Admission, Boolean> paid = new IdentityHashMap<>();
    /** The current clock minute and the least a fixed window of it holds of the pacer's calls. */
    private long minute = Long.MIN_VALUE;
    private final long[] minuteHeld;
    private final Set<Admission> inMinute = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Open calls neither window could have taken: each that settles proves the meter banks. */
    private final Set<Admission> proving = Collections.newSetFromMap(new IdentityHashMap<>());
    private boolean proven;
    private boolean trusted;
    private long withdrawnAt = Long.MIN_VALUE;
    private long retrustMillis = RETRUST_MILLIS;
    private int withdrawals;
    private long throttles;

    RefundingBucket(PacerSettings settings, DimensionBudget[] budgets) {
        this.enabled = settings.headroom();
        this.trusted = enabled;
        this.budgets = budgets;
        this.quotaPerMinute = new long[budgets.length];
        for (int i = 0; i < budgets.length; i++) {
            quotaPerMinute[i] = budgets[i].quotaPerMinute();
        }
        this.level = new long[budgets.length];
        this.remainder = new double[budgets.length];
        this.onTheWay = new long[budgets.length];
        this.heldBack = new double[budgets.length];
        this.aboveNow = new double[budgets.length];
        this.minuteHeld = new long[budgets.length];
    }

    /**
     * Whether the model may pay for calls now. {@code bankNeverWithdrawn}: the meter has not shown
     * that it banks nothing; {@code budgetAllows}: headroom's budget has room for one more probe
     * throttle.
     */
    boolean paying(boolean bankNeverWithdrawn, boolean budgetAllows, long nowMillis) {
        if (!enabled || !bankNeverWithdrawn) {
            return false;
        }
        if (withdrawnAt == Long.MIN_VALUE) {
            // never withdrawn here: the first probe waits for the budget's room, so that no 10
            // minutes hold more than 1% of their calls as extra calls, unless the meter already took
            // what neither window would: then what the model pays for is no probe
            return budgetAllows || proven;
        }
        if (!trusted && withdrawals < GIVE_UP_AFTER && nowMillis - withdrawnAt >= retrustMillis && budgetAllows) {
            trusted = true;
        }
        return trusted && budgetAllows; // it pays only within the budget, as its first probe did
    }

    /** When the level covers {@code amounts} on every dimension at share {@code share}, with nothing else charged. */
    long fitAt(long[] amounts, double share, long nowMillis) {
        refill(share, nowMillis);
        long at = nowMillis;
        for (int i = 0; i < amounts.length; i++) {
            long missing = amounts[i] - level[i];
            if (missing <= 0) {
                continue;
            }
            long cap = capacity(i);
            if (amounts[i] > cap) {
                return Long.MAX_VALUE;
            }
            at = Math.max(at, fitTime(i, amounts[i], rate(share) * quotaPerMinute[i] / 60_000.0, nowMillis));
        }
        return at;
    }

    /** Books an admission of {@code amounts}, whoever paid for it. */
    void charged(long[] amounts, double share, long nowMillis) {
        if (!enabled) {
            return;
        }
        refill(share, nowMillis);
        for (int i = 0; i < amounts.length; i++) {
            level[i] -= amounts[i];
        }
        unclaimed = onItsWay(amounts, nowMillis);
    }

    /**
     * A predecessor's open call admitted at {@code admittedAtMillis}, which may still be on its way
     * at {@code capturedAtMillis}, when its charge is already in the restored level.
     */
    void carried(Admission admission, long[] amounts, long admittedAtMillis, long capturedAtMillis) {
        if (enabled && admittedAtMillis + MAX_LAG_MILLIS > capturedAtMillis) {
            transitOf.put(admission, onItsWay(amounts, admittedAtMillis));
        }
    }

    private Transit onItsWay(long[] amounts, long atMillis) {
        Transit charge = new Transit(atMillis, amounts.clone());
        transit.addLast(charge);
        for (int i = 0; i < amounts.length; i++) {
            onTheWay[i] += amounts[i];
        }
        return charge;
    }

    /**
     * Nothing was charged in the last 60 s: a bucket that was not in debt a minute ago has refilled
     * a whole quota since, whatever calls are still open, so the model is full.
     */
    void idleMinute(double share, long nowMillis) {
        if (!enabled) {
            return;
        }
        refill(share, nowMillis);
        for (int i = 0; i < level.length; i++) {
            level[i] = ceiling(i);
            remainder[i] = 0;
            heldBack[i] = 0;
        }
        anchored = !resumedBlind;
        notePeaks(nowMillis);
    }

    /**
     * The model paid for {@code admission}: a throttle of it is the model's to answer.
     * {@code withinBudget}: headroom's budget had room for a probe throttle when it went.
     */
    void paidFor(Admission admission, boolean withinBudget) {
        paid.put(admission, withinBudget);
    }

    /**
     * The call of {@code admission} started at {@code startedAtMillis} (the drainer made it itself):
     * it is on its way no longer.
     */
    void started(Admission admission, double share, long startedAtMillis) {
        if (!enabled) {
            return;
        }
        refill(share, startedAtMillis);
        Transit charge = transitOf.remove(admission);
        arrived(charge, startedAtMillis);
        if (charge != null) {
            // the span no longer bounds when it reaches the meter: its answer will
            unanswered.started(admission, charge.atMillis, charge.amounts);
            notePeaks(startedAtMillis);
        }
        madeHere.add(admission); // its lag, next to none, says nothing of calls dispatched elsewhere
    }

    /**
     * How long a call dispatched elsewhere may take from its admission to the meter (the span d,
     * without the clock minute's cap): what {@link ClockMinuteWindow} counts a call near a turn by
     * until the drainer starts it itself.
     */
    long dispatchSpanMillis() {
        return span.millis();
    }

    /** Whether the meter took a call that neither a sliding nor a fixed window of the quota would take. */
    boolean proven() {
        return proven;
    }

    /**
     * Books any admission of {@code amounts} (after the budgets charged it) in the clock minute's
     * account and, if neither window could take it, watches it: once it settles it proves.
     */
    void watch(Admission admission, long[] amounts, long nowMillis) {
        if (unclaimed != null) {
            transitOf.put(admission, unclaimed);
            unclaimed = null;
        }
        if (!enabled || withdrawnAt != Long.MIN_VALUE) {
            return;
        }
        roll(nowMillis);
        if (ClockMinuteWindow.nearTurn(nowMillis)) {
            return; // it may reach the meter in either minute: it counts in neither
        }
        boolean slidingRefuses = false;
        boolean fixedRefuses = false;
        for (int i = 0; i < amounts.length; i++) {
            minuteHeld[i] += amounts[i];
            slidingRefuses |= budgets[i].windowSum(nowMillis) > DECISIVE * quotaPerMinute[i];
            fixedRefuses |= minuteHeld[i] > DECISIVE * quotaPerMinute[i];
        }
        inMinute.add(admission);
        if (slidingRefuses && fixedRefuses) {
            proving.add(admission);
        }
    }

    /**
     * Credits what an ended admission gives back: {@code refunds[i]} = reservation − actual; a
     * fixed window gives it back only in the minute the call was charged in.
     */
    void refunded(Admission admission, long[] refunds, double share, long nowMillis) {
        if (!enabled) {
            return;
        }
        refill(share, nowMillis);
        Transit charge = transitOf.remove(admission);
        boolean onItsWayTillNow = charge != null && charge.onItsWay();
        arrived(charge, nowMillis); // it ran, or never will: on its way no longer
        takeBack(unanswered.answered(admission, nowMillis, quotaPerMinute)); // no answer said when: now
        roll(nowMillis);
        boolean sameMinute = inMinute.remove(admission);
        // a settled call's refund went into the meter when it ended; what a call the meter never
        // charged gives back (a release, a refusal) had room in it from its admission, its own
        // charge's too while that was on its way
        Long settledFrom = refundedFrom.remove(admission);
        long since = settledFrom != null ? settledFrom : admission.admittedAtMillis();
        long ownUntil = settledFrom != null || charge == null ? Long.MIN_VALUE
                : onItsWayTillNow ? Long.MAX_VALUE : charge.leftAtMillis;
        for (int i = 0; i < refunds.length; i++) {
            long credit = refunds[i] <= 0 ? refunds[i]
                    : Math.min(refunds[i], history.roomSince(i, since, above(i), ownUntil,
                            charge == null ? 0 : charge.amounts[i]));
            long before = level[i];
            level[i] = Math.min(ceiling(i), level[i] + credit);
            heldBack[i] = Math.min(heldBack[i], ceiling(i) - level[i]);
            if (level[i] > before) {
                history.raiseSince(i, since, level[i] - before);
            }
            if (sameMinute) {
                minuteHeld[i] -= refunds[i];
            }
        }
        notePeaks(nowMillis);
    }

    /**
     * The admission ran, and ended at {@code finishedAtMillis} by its processor's clock (0 if
     * unknown): the meter booked its refund no earlier than {@value #LAG_MARGIN_MILLIS} ms before
     * that (clocks apart), nor before it reached it (any time since, if unknown). If neither window
     * could have taken it, the meter banks what the model counts.
     */
    void settled(Admission admission, long startedAtMillis, long finishedAtMillis) {
        if (enabled) {
            long atMeter = madeHere.contains(admission) ? admission.admittedAtMillis()
                    : admission.admittedAtMillis() + spanMillis();
            refundedFrom.put(admission, Math.max(atMeter, finishedAtMillis - LAG_MARGIN_MILLIS));
        }
        if (!madeHere.remove(admission) && startedAtMillis > 0) {
            span.reached(admission.admittedAtMillis(), startedAtMillis);
        }
        paid.remove(admission);
        if (proving.remove(admission) && withdrawnAt == Long.MIN_VALUE) {
            proven = true;
        }
    }

    /**
     * Bedrock throttled {@code admission}. Returns whether the model takes the blame in headroom's
     * budget: it paid for the call while the budget had room ({@code budgetAllows}: or has room
     * now), so the answer counts there however it left the budget. It then stops paying until its
     * wait is over. A call it paid for on the proof alone, answered without room, was no probe:
     * the proof is contradicted for good and the throttle is the pacer's to answer as any other.
     */
    boolean throttled(Admission admission, boolean budgetAllows, double share, long nowMillis) {
        proving.remove(admission);
        if (enabled) {
            refill(share, nowMillis); // its peak counts up to now
        }
        takeBack(unanswered.answered(admission, nowMillis, quotaPerMinute)); // its refusal says: by now
        Boolean withinBudget = paid.remove(admission);
        if (withinBudget == null) {
            return false;
        }
        proven = false;
        boolean booked = withinBudget || budgetAllows;
        if (booked) {
            throttles++;
        }
        if (trusted) {
            trusted = false;
            if (withdrawnAt != Long.MIN_VALUE) {
                retrustMillis = Math.min(MAX_RETRUST_MILLIS, retrustMillis * 2);
            }
            withdrawnAt = nowMillis;
            withdrawals++;
        }
        return booked;
    }

    /** Whether the model paid for {@code admission}, still open. */
    boolean paysFor(Admission admission) {
        return paid.containsKey(admission);
    }

    /**
     * The call of {@code admission}, made by the drainer itself, reached the meter no later than
     * {@code reachedByMillis}: the model takes back what it refilled before then if the meter sat
     * at its cap.
     */
    void reached(Admission admission, double share, long reachedByMillis, long nowMillis) {
        if (!enabled) {
            return;
        }
        // its peak counts up to its arrival: since the last look the model only refilled
        refill(share, Math.min(reachedByMillis, nowMillis));
        takeBack(unanswered.answered(admission, reachedByMillis, quotaPerMinute));
    }

    /**
     * Gives back what an answered call says the model counted of a meter at its cap
     * ({@link UnansweredCalls}): what was held back first, then the level.
     */
    private void takeBack(double[] owed) {
        if (owed == null) {
            return;
        }
        for (int i = 0; i < level.length; i++) {
            if (owed[i] > 0) {
                double fromHeld = Math.min(Math.max(0.0, heldBack[i]), owed[i]);
                heldBack[i] -= fromHeld;
                level[i] -= (long) Math.ceil(owed[i] - fromHeld);
            }
        }
    }

    /** Shows the unanswered calls and the history how far the model stands above its ceiling now. */
    private void notePeaks(long nowMillis) {
        for (int i = 0; i < level.length; i++) {
            aboveNow[i] = above(i);
        }
        history.remember(nowMillis, aboveNow);
        unanswered.look(nowMillis, aboveNow);
    }

    /** Level and what was held back, less the ceiling, on dimension {@code index}: at most 0. */
    private double above(int index) {
        return level[index] + Math.max(0.0, heldBack[index]) - ceiling(index);
    }

    /** The admission never reached Bedrock: nothing to answer for, nothing shown. */
    void ended(Admission admission, long nowMillis) {
        madeHere.remove(admission); // an unanswered call made here is answered by its refund, as of then
        paid.remove(admission);
        proving.remove(admission);
    }

    long throttles() {
        return throttles;
    }

    /** What a successor needs: the proof, the trust and its withdrawals, and the level at {@code nowMillis}. */
    PacerState.BucketModelState export(double share, long nowMillis) {
        if (!enabled) {
            return PacerState.BucketModelState.NONE;
        }
        refill(share, nowMillis);
        Map<QuotaDimension, Long> levels = new EnumMap<>(QuotaDimension.class);
        for (int i = 0; i < budgets.length; i++) {
            levels.put(budgets[i].dimension(), level[i]);
        }
        return new PacerState.BucketModelState(levels, proven, trusted, withdrawals,
                withdrawnAt == Long.MIN_VALUE ? PacerState.NEVER : withdrawnAt, retrustMillis);
    }

    /**
     * Continues from a predecessor's model captured at {@code capturedAtMillis}: the level refills
     * from then, and the carried calls' refunds are credited as the successor books them, as they
     * would have been; a strict pacer, or a state that learnt nothing, starts afresh.
     */
    void restore(PacerState.BucketModelState state, long capturedAtMillis) {
        if (!enabled) {
            return;
        }
        anchored = false;
        resumedBlind = state.level().isEmpty();
        if (resumedBlind) {
            return;
        }
        for (int i = 0; i < budgets.length; i++) {
            level[i] = Math.min(capacity(i), state.level().getOrDefault(budgets[i].dimension(), 0L));
            remainder[i] = 0;
            heldBack[i] = 0;
        }
        updatedAt = capturedAtMillis;
        proven = state.proven();
        trusted = state.trusted();
        withdrawals = state.withdrawals();
        withdrawnAt = state.withdrawnAtMillis() == PacerState.NEVER ? Long.MIN_VALUE : state.withdrawnAtMillis();
        retrustMillis = Math.max(RETRUST_MILLIS, Math.min(MAX_RETRUST_MILLIS, state.retrustMillis()));
    }

    /** A bucket of the quota holds the quota: the target slows the refill, it does not shrink the bucket. */
    private long capacity(int index) {
        return quotaPerMinute[index];
    }

    private void roll(long nowMillis) {
        long current = Math.floorDiv(nowMillis, ClockMinuteWindow.MINUTE_MILLIS);
        if (current > minute) {
            minute = current;
            Arrays.fill(minuteHeld, 0);
            inMinute.clear();
        }
    }

    /** The model's refill as a share of the quota: the target's until the meter is proven to bank. */
    private double rate(double share) {
        return proven ? 1.0 : Math.min(1.0, share);
    }

    /** Forgets, at most once a minute, what it keeps of calls older than {@link #FORGET_MILLIS}. */
    private void forgetStale(long nowMillis) {
        if (nowMillis < forgotAt + 60_000) {
            return;
        }
        forgotAt = nowMillis;
        long before = nowMillis - FORGET_MILLIS;
        unanswered.forgetBefore(before);
        madeHere.removeIf(admission -> admission.admittedAtMillis() < before);
        transitOf.values().removeIf(charge -> charge.atMillis < before);
        paid.keySet().removeIf(admission -> admission.admittedAtMillis() < before);
        proving.removeIf(admission -> admission.admittedAtMillis() < before);
        refundedFrom.keySet().removeIf(admission -> admission.admittedAtMillis() < before);
    }

    private void refill(double share, long nowMillis) {
        forgetStale(nowMillis);
        if (updatedAt == Long.MIN_VALUE) {
            updatedAt = nowMillis;
            return;
        }
        long span = spanMillis();
        // piecewise: each charge on its way holds the ceiling down until it has surely arrived
        while (!transit.isEmpty()) {
            Transit oldest = transit.peekFirst();
            if (oldest.onItsWay()) {
                if (oldest.atMillis + span > nowMillis) {
                    break;
                }
                refillTo(share, Math.max(updatedAt, oldest.atMillis + span));
                notePeaks(updatedAt);
                arrived(oldest, updatedAt);
            }
            transit.pollFirst(); // arrived, now or before (a start, a settlement, a release)
        }
        refillTo(share, nowMillis);
        notePeaks(nowMillis);
    }

    private void refillTo(double share, long nowMillis) {
        if (nowMillis <= updatedAt) {
            return;
        }
        long elapsed = nowMillis - updatedAt;
        boolean credit = proven;
        double rate = rate(share);
        for (int i = 0; i < level.length; i++) {
            long ceiling = ceiling(i);
            if (level[i] >= ceiling) {
                remainder[i] = 0;
                heldBack[i] = 0;
                anchored = true;
                continue;
            }
            double owed = rate * quotaPerMinute[i] * elapsed / 60_000.0 + remainder[i];
            long whole = (long) Math.floor(owed);
            remainder[i] = owed - whole;
            // the meter holds at most its cap less what is on its way: what it holds above the model is at most that less the level
            heldBack[i] = Math.min(ceiling - Math.min(ceiling, level[i] + whole),
                    heldBack[i] + (1.0 - rate) * quotaPerMinute[i] * elapsed / 60_000.0);
            if (credit && anchored) {
                whole += (long) Math.floor(heldBack[i]);
                heldBack[i] = 0;
            }
            level[i] = Math.min(ceiling, level[i] + whole);
            if (level[i] == ceiling) {
                remainder[i] = 0;
                heldBack[i] = 0;
                anchored = true;
            }
        }
        updatedAt = nowMillis;
    }

    /** The charge is on its way no longer; it leaves the queue when it reaches its head. */
    private void arrived(Transit charge, long atMillis) {
        if (charge != null && charge.onItsWay()) {
            charge.leftAtMillis = atMillis;
            for (int i = 0; i < onTheWay.length; i++) {
                onTheWay[i] -= charge.amounts[i];
            }
        }
    }

    /** How long a charge may take to reach the meter: the longest lag of the latest calls, and a margin. */
    private long spanMillis() {
        return span.millis();
    }

    /** The most the model may hold on a dimension: the quota, less what may still be on its way to the meter. */
    private long ceiling(int index) {
        return capacity(index) - onTheWay[index];
    }

    /**
     * When the level on dimension {@code index} covers {@code amount}, refilling at {@code perMilli}
     * under a ceiling that rises as each charge on its way has surely arrived.
     */
    private long fitTime(int index, long amount, double perMilli, long nowMillis) {
        long span = spanMillis();
        double held = level[index] + remainder[index];
        long from = nowMillis;
        long ceiling = ceiling(index);
        for (Transit charge : transit) {
            if (!charge.onItsWay()) {
                continue;
            }
            long arrived = charge.atMillis + span;
            if (amount <= ceiling && held + Math.max(0, arrived - from) * perMilli >= amount) {
                break;
            }
            held = Math.min(ceiling, held + Math.max(0, arrived - from) * perMilli);
            from = Math.max(from, arrived);
            ceiling += charge.amounts[index];
        }
        return from + (long) Math.ceil(Math.max(0.0, amount - held) / perMilli);
    }

    /** A charge at {@code atMillis} that may not have reached the meter yet, until {@code leftAtMillis}. */
    private static final class Transit {
        final long atMillis;
        final long[] amounts;
        long leftAtMillis = Long.MAX_VALUE;

        Transit(long atMillis, long[] amounts) {
            this.atMillis = atMillis;
            this.amounts = amounts;
        }

        boolean onItsWay() {
            return leftAtMillis == Long.MAX_VALUE;
        }
    }
}
