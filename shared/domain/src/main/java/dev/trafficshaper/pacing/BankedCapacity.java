package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.QuotaDimension;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a meter banks during idle time, learnt by spending it: after a minute with nothing charged,
 * a token bucket is full and lets a minute of quota go on top of its refill, which the 60 s window
 * (spending at most the target per minute) never uses.
 *
 * <p>Why: the oracle spends a full bucket at the start of a burst, and the strict bound cannot —
 * its window holds every charge for 60 s whatever the meter. A sliding or fixed window meter does
 * not bank, so the pacer cannot simply assume it; it spends the bank as a probe and learns from
 * the answer. While a bank is trusted, the calls it paid for do not count in the window (the
 * window's limit is raised by their charges still in it, so they leave it as they would leave a
 * bucket); the first throttle that the window would not have let through without that credit
 * withdraws it at once: the bank's calls count in the window again, so the pacer waits for them to
 * age out, exactly as if it had spent the minute evenly, and loses nothing but the throttles.
 * Those throttles are extra calls like headroom's ({@link Headroom}): not held to its budget (the
 * probe goes at a burst's first call, when the budget's 10 minutes may hold no calls), but booked
 * in it, so the probes held to it leave room for them and a run's extra calls stay within the
 * budget's share of its calls. Left out of it, a burst of 300 requests under the sliding window
 * took four throttles (1.013 calls per request) for fixed-window
 * {@code long-generations-split-tpm} at 1.052× the oracle instead of 1.106× (docs/headroom.md, "Banked
 * capacity").
 *
 * <pre>
 *   episode: starts at a decision with nothing charged in the last 60 s, if b > 0:
 *            bank = b × target × quota per dimension, for 60 s or until spent
 *   a call the window would hold back goes on the bank if it fits what is left, spaced by its
 *            reservation at {@value #RATE_MULTIPLE} × the target rate (never a clump)
 *   a call the bank paid for settles within the episode: what is left += reservation − actual
 *            (every meter here charges a settled call its actual use: the bucket refunds the
 *            rest, a fixed window within the minute, a sliding window corrects the charge); a
 *            call released or throttled gives nothing back (the meter took nothing, but a bank
 *            that re-spent a refused call's reservation would send it into the same refusal)
 *   window limit while trusted = target × quota + bank charges still in the window
 *   on a throttle the window would not have taken without the credit:
 *            credit withdrawn, episode over, b' = b / 2 (below 1/8: 0, the meter does not bank)
 *   b starts at 1 with headroom on, 0 with it off (the strict bound, bit for bit)
 * </pre>
 *
 * Why the settled calls' refunds: counted by reservation alone, the bank ran out before its episode
 * did where reservations are well above use, though the meter had given the difference back:
 * token-bucket {@code minute-boundary-burst} 1.074× → 1.066× the oracle, no other run of the 48
 * changed, with the short-horizon limit on or headroom off either.
 *
 * <p>Load states: <b>idle</b> (no episode); <b>banking</b> (an episode with bank left);
 * <b>spent</b> (an episode whose bank is used up or withdrawn, running on the window alone).
 */
final class BankedCapacity {

    static final long EPISODE_MILLIS = 60_000;
    static final double RATE_MULTIPLE = 1.0;
    static final double GIVE_UP_BELOW = 1.0 / 8;

    private final boolean enabled;
    private int withdrawals;
    private double share;
    private long episodeStart = Long.MIN_VALUE;
    private long[] remaining;
    private long tatMicros = Long.MIN_VALUE;
    private boolean trusted;
    private long withdrawnAt = Long.MIN_VALUE;
    private long throttles;
    private final QuickBank quick = new QuickBank();

    BankedCapacity(PacerSettings settings) {
        this.enabled = settings.headroom();
        this.share = enabled ? 1.0 : 0.0;
    }

    /** What a successor needs: the withdrawals learnt, the open episode, the credit (set by the budgets). */
    PacerState.BankState export(DimensionBudget[] budgets, BunchingGuard guard, long nowMillis) {
        Map<QuotaDimension, Long> left = new EnumMap<>(QuotaDimension.class);
        Map<QuotaDimension, List<PacerState.WindowCharge>> credits =
                new EnumMap<>(QuotaDimension.class);
        boolean open = episodeOpen(nowMillis) && remaining != null;
        for (int i = 0; i < budgets.length; i++) {
            if (open) {
                left.put(budgets[i].dimension(), remaining[i]);
            }
            if (trusted) {
                List<PacerState.WindowCharge> charges = budgets[i].exportCredit(nowMillis);
                if (!charges.isEmpty()) {
                    credits.put(budgets[i].dimension(), charges);
                }
            }
        }
        double factor = guard.factor(nowMillis);
        return new PacerState.BankState(withdrawals, open ? episodeStart : PacerState.NEVER, left, credits,
                factor == Double.POSITIVE_INFINITY ? 0.0 : factor,
                guard.lastThrottleAt() == Long.MIN_VALUE ? PacerState.NEVER : guard.lastThrottleAt(),
                open && tatMicros > nowMillis * 1_000 ? tatMicros : PacerState.NEVER, PacerState.BucketModelState.NONE,
                open ? quick.export() : PacerState.QuickBankState.NONE);
    }

    /** Continues from a predecessor's state; a strict pacer ignores it. */
    void restore(PacerState.BankState state, DimensionBudget[] budgets, long nowMillis) {
        if (!enabled) {
            return;
        }
        withdrawals = state.withdrawals();
        share = shareAfter(withdrawals);
        boolean credited = false;
        for (DimensionBudget budget : budgets) {
            List<PacerState.WindowCharge> charges = state.credits().get(budget.dimension());
            if (charges != null) {
                budget.restoreCredit(charges, nowMillis);
                credited = true;
            }
        }
        if (state.episodeStartMillis() != PacerState.NEVER && !state.remaining().isEmpty()) {
            episodeStart = state.episodeStartMillis();
            remaining = new long[budgets.length];
            for (int i = 0; i < budgets.length; i++) {
                remaining[i] = state.remaining().getOrDefault(budgets[i].dimension(), 0L);
            }
            credited = true;
            quick.restore(state.quick());
            if (state.nextSlotMicros() > nowMillis * 1_000) {
                tatMicros = state.nextSlotMicros();
            }
        }
        trusted = credited && share > 0;
    }

    private static double shareAfter(int withdrawals) {
        double value = Math.pow(0.5, withdrawals);
        return value < GIVE_UP_BELOW ? 0.0 : value;
    }

    double share() {
        return share;
    }

    /** Whether the window should count the bank's charges as credit. */
    boolean trusted() {
        return trusted;
    }

    /** Whether an episode is open with bank left to spend: calls go on it beside the window's. */
    boolean banking(long nowMillis) {
        if (!trusted || !episodeOpen(nowMillis) || remaining == null) {
            return false;
        }
        for (long left : remaining) {
            if (left > 0) {
                return true;
            }
        }
        return false;
    }

    /** Throttles the bank answered. */
    long throttles() {
        return throttles;
    }

    /** Opens an episode if the window has been empty for a minute and the meter may bank. */
    void maybeStart(DimensionBudget[] budgets, double target, long nowMillis) {
        if (share == 0.0 || episodeOpen(nowMillis)) {
            return;
        }
        for (DimensionBudget budget : budgets) {
            if (!budget.windowEmpty(nowMillis)) {
                return;
            }
        }
        remaining = new long[budgets.length];
        for (int i = 0; i < budgets.length; i++) {
            remaining[i] = (long) Math.floor(share * target * budgets[i].quotaPerMinute());
        }
        episodeStart = nowMillis;
        tatMicros = Long.MIN_VALUE;
        trusted = true;
        quick.opened(share, target, nowMillis);
    }

    /** When the bank could pay for {@code amounts}, or {@link Long#MAX_VALUE} if it cannot. */
    long slotFor(long[] amounts, long nowMillis) {
        if (!episodeOpen(nowMillis) || remaining == null) {
            return Long.MAX_VALUE;
        }
        for (int i = 0; i < amounts.length; i++) {
            if (amounts[i] > remaining[i]) {
                return Long.MAX_VALUE;
            }
        }
        long slot = tatMicros == Long.MIN_VALUE ? nowMillis : Math.floorDiv(tatMicros + 999, 1_000);
        long end = episodeStart + EPISODE_MILLIS;
        return slot < end ? Math.max(nowMillis, slot) : Long.MAX_VALUE;
    }

    /** A call the bank paid for settled: within the episode, what it did not use is the bank's again. */
    void settled(long[] refunds, long nowMillis) {
        if (!episodeOpen(nowMillis) || remaining == null) {
            return;
        }
        for (int i = 0; i < refunds.length; i++) {
            remaining[i] += refunds[i];
        }
    }

    /**
     * From when the bank may pay for {@code amounts} beside what the budgets' ledgers hold: now,
     * unless a call went quickly this episode ({@link QuickBank}); then once a bucket full at the
     * episode's start, refilled at the quota, holds it, supposing the ledgers stay as they are (a
     * later wake-up sees what has settled or left them since); {@link Long#MAX_VALUE} if not
     * within the episode.
     */
    long episodeBucketFit(DimensionBudget[] budgets, long[] amounts, long nowMillis) {
        if (!quick.spentQuickly() || !episodeOpen(nowMillis)) {
            return nowMillis;
        }
        long fit = nowMillis;
        for (int i = 0; i < budgets.length; i++) {
            double beyond = (double) (budgets[i].windowSum(nowMillis) + amounts[i]) / budgets[i].quotaPerMinute() - 1.0;
            fit = Math.max(fit, episodeStart + (long) Math.ceil(beyond * EPISODE_MILLIS));
        }
        return fit < episodeStart + EPISODE_MILLIS ? fit : Long.MAX_VALUE;
    }

    /**
     * The bank pays for a call of {@code amounts} (normalised {@code cost}) now, already booked in
     * the budgets' ledgers: spaced at the bank's rate, or quicker while {@link QuickBank} allows.
     */
    void spend(long[] amounts, double cost, double target, DimensionBudget[] budgets, long nowMillis) {
        boolean withinQuota = true;
        for (int i = 0; i < amounts.length; i++) {
            remaining[i] -= amounts[i];
            withinQuota &= budgets[i].windowSum(nowMillis) <= budgets[i].quotaPerMinute();
        }
        double multiple = RATE_MULTIPLE * quick.spend(cost, withinQuota, nowMillis);
        long floor = nowMillis * 1_000 - DimensionBudget.LATENESS_MICROS;
        long base = tatMicros == Long.MIN_VALUE ? nowMillis * 1_000 : Math.max(tatMicros, floor);
        tatMicros = base + Math.round(cost * 60_000_000.0 / (multiple * target));
    }

    /**
     * Bedrock throttled a call the window would not have taken without the bank's credit. Returns
     * whether the bank takes the blame (it then withdraws its credit and halves what it trusts).
     */
    boolean throttled(boolean neededCredit, long admittedAtMillis, long nowMillis) {
        if (withdrawnAt != Long.MIN_VALUE && admittedAtMillis <= withdrawnAt && nowMillis - withdrawnAt < EPISODE_MILLIS) {
            throttles++;
            return true; // sent on the credit before it was withdrawn: the same answer, already acted on
        }
        if (!trusted || !neededCredit) {
            return false;
        }
        throttles++;
        trusted = false;
        remaining = null;
        withdrawnAt = nowMillis;
        withdrawals++;
        share = shareAfter(withdrawals);
        return true;
    }

    private boolean episodeOpen(long nowMillis) {
        return episodeStart != Long.MIN_VALUE && nowMillis - episodeStart < EPISODE_MILLIS;
    }
}
