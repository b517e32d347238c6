package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides when each queued request for one model may be sent to Bedrock. One instance per model,
 * held by whoever drains that model's queue; the local runtime and the simulator use this same
 * class. Time is always passed in (epoch millis), so the pacer is a pure state machine.
 *
 * <p>Why it looks like this:
 * <ul>
 *   <li>Bedrock reserves input + cache + {@code maxTokens} × burndown when a request starts and
 *       settles to actual usage when it ends. The pacer charges exactly that on every metered
 *       dimension ({@link DimensionBudget}) and books the settlement against the admission. The
 *       spacing charges what the call is expected to use, the output allowance scaled by the share
 *       of it that settled calls generated ({@link OutputShare}).
 *   <li>Each dimension regenerates continuously at target × quota per minute. Admissions are
 *       spaced evenly and never exceed the target in any 60 s window, which keeps a token-bucket,
 *       fixed-window or sliding-window meter under quota alike.
 *   <li>Interactive and bulk lanes share the budget by start-time fair queuing with weights
 *       {@code 1 − bulkShare} and {@code bulkShare}: interactive always gets its reserve, bulk takes
 *       everything interactive leaves unused, neither starves. Within a lane tenants share equally,
 *       and optional tenant caps bound a tenant's rate. Requests are never reordered by size, so a
 *       large request is not overtaken forever by small ones.
 *   <li>An unexpected throttle lowers the target multiplicatively ({@link ThrottleFeedback}); the
 *       first admissions after an idle period ramp up ({@link SlowStart}).
 *   <li>With headroom on, the pacer probes, within a budget of extra calls, for what the meter
 *       allows beyond that strict bound: how much of the open calls' unused reservation it forgives
 *       and how far above the target it may spend ({@link Headroom}), and reserves the input that
 *       settlements show the estimates stand for ({@link InputScale}). Where the window holds the
 *       queue back, a model of the meter as a token bucket refunded at settlement may pay for the
 *       call instead ({@link RefundingBucket}), as long as the meter behaves as one. Where the meter
 *       shows it is a fixed clock-minute window, the window bound is that clock minute
 *       ({@link ClockMinuteWindow}).
 * </ul>
 *
 * <p>Load states: <b>idle</b> (nothing offered: {@link Decision.Idle}); <b>under target</b>
 * (the head goes at once); <b>backlogged</b> (heads wait for {@link Decision.WaitUntil}, the pacer
 * spends target × quota per minute); <b>throttled</b> (target lowered, recovering).
 *
 * <p>Not thread-safe: exactly one drainer (the lease holder) owns a model's pacer at a time.
 */
public final class Pacer {

    private static final Comparator<Candidate> WITHIN_TENANT = Candidate.WITHIN_TENANT;
    /** Lift steps of 0.01 summed may miss the ceiling by a rounding error: at it within this. */
    private static final double CEILING_TOLERANCE = 1e-9;

    private final Quota quota;
    private final PacerSettings settings;
    private final DimensionBudget[] budgets;
    private final ThrottleFeedback feedback;
    private final SlowStart slowStart;
    private final OutputShare outputShare = new OutputShare();
    private final Headroom headroom;
    private final InputScale inputScale = new InputScale();
    private final BunchingGuard bunching = new BunchingGuard();
    private final BankedCapacity bank;
    private final CatchUp catchUp;
    private final RefundingBucket bucket;
    private final ClockMinuteWindow minute;
    private final FairShare<Lane> lanes = new FairShare<>();
    private final Map<Lane, FairShare<String>> tenantsByLane = new EnumMap<>(Lane.class);
    private final Map<String, Long> tenantNextSlotMicros = new HashMap<>();
    private long admitted;
    /** The predecessor's open calls, until the drainer takes them ({@link #takeCarriedCalls}). */
    private List<Admission> carried = List.of();

    private Pacer(Quota quota, PacerSettings settings) {
        this.quota = quota;
        this.settings = settings;
        List<DimensionBudget> limited = new ArrayList<>();
        for (QuotaDimension dimension : QuotaDimension.values()) {
            if (quota.limit(dimension) > 0) {
                limited.add(new DimensionBudget(dimension, quota.limit(dimension)));
            }
        }
        this.budgets = limited.toArray(DimensionBudget[]::new);
        this.feedback = new ThrottleFeedback(settings);
        this.slowStart = new SlowStart(settings);
        this.headroom = new Headroom(settings);
        this.bank = new BankedCapacity(settings);
        this.catchUp = new CatchUp(settings);
        this.bucket = new RefundingBucket(settings, budgets);
        this.minute = new ClockMinuteWindow(settings, bucket::dispatchSpanMillis, this::refusedLevel, bucket::proven);
        for (Lane lane : Lane.values()) {
            tenantsByLane.put(lane, new FairShare<>());
        }
    }

    public static Pacer create(Quota quota, PacerSettings settings) {
        return new Pacer(quota, settings);
    }

    /**
     * Continues pacing from a predecessor's {@link #export}, as the next lease holder of the model.
     * Everything is restored so the successor is at least as cautious as the predecessor would have
     * been (see {@link PacerState}); a state whose charges have left the window, whose spacing is
     * paid and whose target has recovered gives a pacer that behaves as a fresh one.
     *
     * <p>If the quota changed since the export (a configuration change), the state is read
     * conservatively: charges keep their units, so a lower limit applies to them at once; token
     * charges grow by the ratio of a higher output burndown (never shrink for a lower one); spacing
     * still owed is stretched by the ratio of a lower quota (never shortened for a higher one); a
     * dimension no longer limited is dropped; a newly limited dimension starts empty, since nothing
     * was measured for it. Changed settings apply from the resume: the target recovers from its value
     * at capture towards the new base at the new rate; idle and ramp lengths apply to the carried
     * last admission.
     *
     * <p>Carried times come from the predecessor's clock. A successor clock behind it by d holds the
     * carried charges d longer and books its own no earlier than them; one ahead by d lets them leave
     * d early, so the two clocks must agree to well within a bucket.
     */
    public static Pacer resume(Quota quota, PacerSettings settings, PacerState state, long nowMillis) {
        Pacer pacer = new Pacer(quota, settings);
        double tokenScale = Math.max(1.0, (double) quota.outputBurndown() / state.outputBurndown());
        List<PacerState.OpenCall> open = new ArrayList<>();
        List<PacerState.OpenCall> outOfWindow = new ArrayList<>();
        for (PacerState.OpenCall call : state.openCalls()) {
            boolean chargedEverywhere = true;
            boolean left = false;
            for (DimensionBudget budget : pacer.budgets) {
                PacerState.OpenCharge charge = call.charges().get(budget.dimension());
                chargedEverywhere &= charge != null;
                left |= charge != null && charge.atMillis() <= nowMillis - DimensionBudget.WINDOW_MILLIS;
            }
            if (chargedEverywhere) {
                (left ? outOfWindow : open).add(call);
            }
        }
        SlidingWindowLedger.Entry[][] handles = new SlidingWindowLedger.Entry[pacer.budgets.length][];
        for (int i = 0; i < pacer.budgets.length; i++) {
            DimensionBudget budget = pacer.budgets[i];
            PacerState.DimensionState exported = state.dimensions().get(budget.dimension());
            if (exported != null) {
                List<PacerState.OpenCharge> charges = new ArrayList<>(open.size());
                for (PacerState.OpenCall call : open) {
                    charges.add(call.charges().get(budget.dimension()));
                }
                handles[i] = budget.restore(exported, budget.dimension() == QuotaDimension.TOKENS ? tokenScale : 1.0,
                        charges, nowMillis);
            }
        }
        List<Admission> carried = new ArrayList<>(carriedCalls(pacer.budgets, open, handles));
        carried.addAll(carriedCalls(pacer.budgets, outOfWindow, detached(pacer.budgets, outOfWindow)));
        pacer.carried = List.copyOf(carried);
        pacer.feedback.restore(state.target(), state.headroomBudget().recoveryLine(),
                state.headroomBudget().throttleCeiling(), state.capturedAtMillis(),
                state.lastThrottleAtMillis() == PacerState.NEVER ? Long.MIN_VALUE : state.lastThrottleAtMillis());
        if (state.lastAdmissionAtMillis() != PacerState.NEVER) {
            pacer.slowStart.restore(state.lastAdmissionAtMillis(), state.slowStartAtMillis());
        }
        pacer.outputShare.restore(state.outputShare());
        pacer.headroom.restore(state.forgiveness(), state.lift());
        pacer.headroom.restoreBudget(state.headroomBudget(), nowMillis);
        pacer.catchUp.restore(state.headroomBudget().catchUpWithdrawals());
        pacer.inputScale.restore(state.inputScale());
        pacer.bank.restore(state.bank(), pacer.budgets, nowMillis);
        pacer.bucket.restore(state.bank().bucketModel(), state.capturedAtMillis());
        List<Admission> byAdmission = new ArrayList<>(pacer.carried);
        byAdmission.sort(Comparator.comparingLong(Admission::admittedAtMillis));
        for (Admission call : byAdmission) {
            pacer.bucket.carried(call, pacer.amounts(call.reservation()), call.admittedAtMillis(),
                    state.capturedAtMillis());
        }
        pacer.bunching.restore(state.bank().guardFactor(), state.bank().guardThrottleAtMillis());
        pacer.minute.restore(state.clockMinute(), pacer.budgets, nowMillis);
        state.tenantNextSlotMicros().forEach((tenant, slot) -> {
            if (settings.tenantCaps().containsKey(tenant) && slot > nowMillis * 1_000) {
                pacer.tenantNextSlotMicros.put(tenant, slot);
            }
        });
        return pacer;
    }

    /**
     * The state a successor needs to continue pacing this model, for a handoff at {@code nowMillis}.
     * Stop admitting once exported; admissions still open stay charged at their reservation. A few
     * kilobytes at most, whatever the request rate (see {@link PacerState}).
     */
    public PacerState export(long nowMillis) {
        return export(PacerState.BUCKET_MILLIS, false, nowMillis);
    }

    /**
     * {@code handoff}: the state a drainer publishes as it stops admitting, which holds every
     * admission it made; only that one carries the refunding bucket's model. A periodic status
     * (what a crashed drainer's successor resumes from) misses the admissions after it and the
     * sweeper's re-dispatches of the dead drainer's slots, and a model counted from it would
     * overstate the meter: that successor starts the model afresh.
     */
    private PacerState export(long bucketMillis, boolean handoff, long nowMillis) {
        long episodeAt = feedback.episodeAt();
        long lastAdmission = slowStart.lastAdmission();
        // A resumed pacer whose clock runs behind its predecessor's may hold times ahead of its own.
        long capturedAt = Math.max(nowMillis, Math.max(episodeAt, lastAdmission));
        for (DimensionBudget budget : budgets) {
            capturedAt = Math.max(capturedAt, budget.latestChargeAt());
        }
        capturedAt = Math.max(capturedAt, headroom.latestAt());
        Map<QuotaDimension, PacerState.DimensionState> dimensions = new EnumMap<>(QuotaDimension.class);
        for (DimensionBudget budget : budgets) {
            dimensions.put(budget.dimension(), budget.export(bucketMillis, capturedAt));
        }
        long capturedAtMicros = capturedAt * 1_000;
        Map<String, Long> tenantSlots = new HashMap<>();
        tenantNextSlotMicros.forEach((tenant, slot) -> {
            if (slot > capturedAtMicros) {
                tenantSlots.put(tenant, slot);
            }
        });
        return new PacerState(capturedAt, quota.outputBurndown(), dimensions, feedback.target(capturedAt),
                episodeAt == Long.MIN_VALUE ? PacerState.NEVER : episodeAt,
                lastAdmission == Long.MIN_VALUE ? PacerState.NEVER : lastAdmission,
                lastAdmission == Long.MIN_VALUE ? PacerState.NEVER : slowStart.rampStart(),
                tenantSlots, outputShare.value(), headroom.forgiveness(), headroom.lift(),
                headroomState(capturedAt), inputScale.export(), bank.export(budgets, bunching, capturedAt)
                        .withBucketModel(handoff ? bucket.export(target(capturedAt), capturedAt)
                                : PacerState.BucketModelState.NONE),
                List.of(), minute.export(budgets, capturedAt));
    }

    /** The clock-minute learner, for tests. */
    ClockMinuteWindow minuteWindow() {
        return minute;
    }

    /** The refunding bucket's model, for tests. */
    RefundingBucket refundingBucket() {
        return bucket;
    }

    /**
     * The same as {@link #export(long)}, for a hand-off: the window's charges in finer buckets
     * ({@link PacerState#HANDOFF_BUCKET_MILLIS}), and the calls of {@code open} that are still open
     * (at most {@link PacerState#MAX_OPEN_CALLS}, the latest admitted), so the
     * successor can book their settlements ({@link PacerState.OpenCall}), and the refunding bucket's
     * model. A call the bank paid for is left out: it stays charged.
     */
    public PacerState export(long nowMillis, Collection<Admission> open) {
        PacerState state = export(PacerState.HANDOFF_BUCKET_MILLIS, true, nowMillis);
        long capturedAt = state.capturedAtMillis();
        List<Admission> carriable = new ArrayList<>();
        for (Admission admission : open) {
            if (!admission.isClosed() && !admission.banked() && charged(admission)) {
                carriable.add(admission);
            }
        }
        carriable.sort(Comparator.comparingLong(Admission::admittedAtMillis).reversed());
        List<PacerState.OpenCall> calls = new ArrayList<>();
        for (Admission admission : carriable.subList(0, Math.min(carriable.size(), PacerState.MAX_OPEN_CALLS))) {
            Map<QuotaDimension, PacerState.OpenCharge> charges = new EnumMap<>(QuotaDimension.class);
            for (int i = 0; i < budgets.length; i++) {
                SlidingWindowLedger.Entry entry = admission.entry(i);
                charges.put(budgets[i].dimension(), new PacerState.OpenCharge(entry.at(), entry.amount(),
                        Math.min(entry.amount(), Math.max(0, admission.spaced(i)))));
            }
            Candidate candidate = admission.candidate();
            calls.add(new PacerState.OpenCall(candidate.requestId(), candidate.lane(), candidate.tenant(),
                    candidate.expected(), admission.admittedAtMillis(), admission.normalizedCost(), charges));
        }
        calls.sort(Comparator.comparingLong(PacerState.OpenCall::admittedAtMillis)
                .thenComparing(PacerState.OpenCall::requestId));
        return calls.isEmpty() ? state : state.withOpenCalls(calls);
    }

    /**
     * The predecessor's open calls this pacer resumed, each as an admission to report exactly once
     * ({@link #settle}, {@link #release}, {@link #throttled}) when its outcome is learnt; handed out
     * once (empty afterwards and for a pacer not resumed). One never reported stays charged until
     * it leaves the window.
     */
    public List<Admission> takeCarriedCalls() {
        List<Admission> calls = carried;
        carried = List.of();
        return calls;
    }

    /**
     * Whether an open admission holds a charge on every dimension, in the window or not: one whose
     * admission has left the window travels too, since its settlement still refunds the bucket
     * model and teaches the learners (a 61 s generation outlives its window charge).
     */
    private boolean charged(Admission admission) {
        for (int i = 0; i < budgets.length; i++) {
            SlidingWindowLedger.Entry entry = admission.entry(i);
            if (entry == null || entry.amount() <= 0) {
                return false;
            }
        }
        return budgets.length > 0;
    }

    /** Charges outside the window for open calls whose admission has left it: their settlement still counts. */
    private static SlidingWindowLedger.Entry[][] detached(DimensionBudget[] budgets, List<PacerState.OpenCall> calls) {
        SlidingWindowLedger.Entry[][] handles = new SlidingWindowLedger.Entry[budgets.length][calls.size()];
        for (int i = 0; i < budgets.length; i++) {
            for (int c = 0; c < calls.size(); c++) {
                PacerState.OpenCharge charge = calls.get(c).charges().get(budgets[i].dimension());
                handles[i][c] = SlidingWindowLedger.Entry.detached(charge.atMillis(), charge.amount());
            }
        }
        return handles;
    }

    /** Admissions for the resumed open calls whose charge was split out in every dimension. */
    private static List<Admission> carriedCalls(DimensionBudget[] budgets, List<PacerState.OpenCall> open,
            SlidingWindowLedger.Entry[][] handles) {
        List<Admission> calls = new ArrayList<>();
        for (int c = 0; c < open.size(); c++) {
            PacerState.OpenCall call = open.get(c);
            SlidingWindowLedger.Entry[] entries = new SlidingWindowLedger.Entry[budgets.length];
            long[] spaced = new long[budgets.length];
            long[] amounts = new long[QuotaDimension.values().length];
            boolean split = true;
            for (int i = 0; i < budgets.length; i++) {
                entries[i] = handles[i] == null ? null : handles[i][c];
                split &= entries[i] != null;
                if (entries[i] != null) {
                    amounts[budgets[i].dimension().ordinal()] = entries[i].amount();
                    spaced[i] = call.charges().get(budgets[i].dimension()).spaced();
                }
            }
            if (!split) {
                continue; // it stays in its bucket, charged until the bucket leaves the window
            }
            Charge reservation = new Charge(amounts[QuotaDimension.REQUESTS.ordinal()],
                    amounts[QuotaDimension.TOKENS.ordinal()], amounts[QuotaDimension.INPUT_TOKENS.ordinal()],
                    amounts[QuotaDimension.OUTPUT_TOKENS.ordinal()]);
            Candidate candidate = new Candidate(call.requestId(), call.lane(), call.tenant(), call.expected(),
                    call.admittedAtMillis(), Long.MAX_VALUE);
            calls.add(new Admission(candidate, reservation, call.normalizedCost(), call.admittedAtMillis(), entries,
                    spaced));
        }
        return List.copyOf(calls);
    }

    public Quota quota() {
        return quota;
    }

    public PacerSettings settings() {
        return settings;
    }

    /**
     * Chooses among the queue heads: either one to send now, or the time to ask again. Pass every
     * head the caller can see (at least the oldest of each lane and tenant); the pacer picks by lane
     * share, tenant share, then deadline and age.
     */
    public Decision decide(List<Candidate> heads, long nowMillis) {
        if (heads.isEmpty()) {
            return new Decision.Idle();
        }
        long wakeAt = Long.MAX_VALUE;
        List<Candidate> eligible = new ArrayList<>(heads.size());
        for (Candidate head : heads) {
            long tenantSlot = tenantSlot(head.tenant(), nowMillis);
            if (tenantSlot <= nowMillis) {
                eligible.add(head);
            } else {
                wakeAt = Math.min(wakeAt, tenantSlot);
            }
        }
        if (eligible.isEmpty()) {
            return new Decision.WaitUntil(wakeAt);
        }
        Candidate chosen = choose(eligible);
        Charge charge = Charge.reservation(quota, reserved(chosen.expected()));
        long[] amounts = amounts(charge);
        double target = target(nowMillis);
        double forgiveness = headroom.forgiveness();
        bank.maybeStart(budgets, target, nowMillis);
        if (windowsEmpty(nowMillis)) {
            bucket.idleMinute(target, nowMillis);
        }
        boolean credited = bank.trusted();
        long start = nowMillis;
        long spacing = nowMillis;
        long slidingFit = nowMillis;
        boolean windowBinds = false;
        boolean forgivingFrees = true;
        for (DimensionBudget budget : budgets) {
            long amount = charge.amount(budget.dimension());
            long slot = budget.nextSlot(nowMillis);
            long fit = budget.windowFit(amount, target, forgiveness, credited, nowMillis);
            start = Math.max(start, slot);
            spacing = Math.max(spacing, slot);
            slidingFit = Math.max(slidingFit, fit);
            boolean binds = fit > nowMillis && fit >= slot;
            windowBinds |= binds;
            // forgiving frees room only if it does in every dimension whose window holds the call back
            forgivingFrees &= !binds || Headroom.forgivingFrees(budget.openExcess(nowMillis), budget.windowLimit(1.0));
        }
        boolean minuteMayHelp = !minute.off() && headroom.budgetAllows(nowMillis);
        start = Math.max(start, minute.windowFit(budgets, amounts, target, slidingFit, minuteMayHelp, nowMillis));
        long guard = bunching.nextSlot(nowMillis);
        start = Math.max(start, guard);
        if (start > nowMillis) {
            long banked = Math.max(guard, bank.slotFor(amounts, nowMillis));
            if (banked <= nowMillis) {
                banked = bank.episodeBucketFit(budgets, amounts, nowMillis);
            }
            if (banked <= nowMillis) {
                return new Decision.Admit(chosen, watched(admitBanked(chosen, charge, target, nowMillis), false,
                        nowMillis));
            }
            long modelled = Long.MAX_VALUE;
            boolean budgetRoom = headroom.budgetAllows(nowMillis);
            if (bucket.paying(bank.share() >= 1.0, budgetRoom, nowMillis)) {
                modelled = Math.max(Math.max(spacing, guard), bucket.fitAt(amounts, target, nowMillis));
                if (modelled <= nowMillis) {
                    Admission admission = admit(chosen, charge, target, 1.0, nowMillis);
                    bucket.paidFor(admission, budgetRoom);
                    return new Decision.Admit(chosen, watched(admission, false, nowMillis));
                }
                headroom.backloggedOnBucket(nowMillis);
            } else if (!minute.probeOwed(nowMillis)) {
                // where the clock minute bounds the window, forgiving open calls frees nothing: the lift steps
                headroom.backlogged(windowBinds && forgivingFrees && !minute.acting(nowMillis), nowMillis);
            }
            return new Decision.WaitUntil(Math.min(Math.min(Math.min(start, banked), modelled), wakeAt));
        }
        double spacingMultiple = minute.acting(nowMillis) && headroom.budgetAllows(nowMillis)
                && minute.fits(budgets, amounts, target, nowMillis)
                ? minute.spacingMultiple(bank.banking(nowMillis), nowMillis) : 1.0;
        if (bunching.guarding(nowMillis)) {
            // a sub-second limit showed itself: no quick turn while the guard holds it off
            spacingMultiple = Math.min(spacingMultiple, ClockMinuteWindow.RATE_MULTIPLE);
        }
        // a call the clock minute sends, or spaces for, is the learner's: its throttle is in the budget
        boolean learnerSent = slidingFit > nowMillis;
        boolean quick = spacingMultiple > ClockMinuteWindow.RATE_MULTIPLE;
        return new Decision.Admit(chosen, watched(admit(chosen, charge, target, spacingMultiple, nowMillis), learnerSent,
                quick, nowMillis));
    }

    /** Books an admission with the clock minute's learner and the bucket model's proof. */
    private Admission watched(Admission admission, boolean minuteOnly, long nowMillis) {
        return watched(admission, minuteOnly, false, nowMillis);
    }

    private Admission watched(Admission admission, boolean minuteOnly, boolean quick, long nowMillis) {
        long[] amounts = amounts(admission.reservation());
        minute.admitted(admission, budgets, amounts, minuteOnly, quick, nowMillis);
        bucket.watch(admission, amounts, nowMillis);
        return admission;
    }

    /** The request ran: book its actual usage against what was reserved and refund the rest. */
    public void settle(Admission admission, TokenUsage actual, long nowMillis) {
        settle(admission, actual, 0, nowMillis);
    }

    /**
     * {@link #settle(Admission, TokenUsage, long)}, knowing when the call started at Bedrock
     * ({@code startedAtMillis}, 0 if unknown): the bucket model learns how long calls take to reach
     * the meter. The call is taken to have ended now.
     */
    public void settle(Admission admission, TokenUsage actual, long startedAtMillis, long nowMillis) {
        settle(admission, actual, startedAtMillis, nowMillis, nowMillis);
    }

    /**
     * {@link #settle(Admission, TokenUsage, long, long)}, knowing also when the call ended by its
     * processor's clock ({@code finishedAtMillis}, 0 if unknown): the bucket model books the refund
     * as of then, into a meter that may have reached its cap since.
     */
    public void settle(Admission admission, TokenUsage actual, long startedAtMillis, long finishedAtMillis,
            long nowMillis) {
        admission.close();
        bucket.settled(admission, startedAtMillis, finishedAtMillis);
        outputShare.learn(admission.candidate().expected().outputTokens(), actual.outputTokens());
        inputScale.learn(admission.candidate().expected().inputTokens(), actual.inputTokens());
        Charge settled = Charge.settlement(quota, actual);
        if (admission.banked()) {
            bank.settled(amounts(admission.reservation().minus(settled)), nowMillis);
        }
        correct(admission, settled, nowMillis);
        minute.corrected(admission, budgets, amounts(settled.minus(admission.reservation())), true, nowMillis);
    }

    /**
     * The call of {@code admission} started now, on the drainer's own thread: it is on its way to
     * Bedrock, and {@link #reached} will say by when it got there.
     */
    public void started(Admission admission, long nowMillis) {
        bucket.started(admission, target(nowMillis), nowMillis);
        minute.started(admission, amounts(admission.reservation()), nowMillis);
    }

    /**
     * The call the drainer made itself for {@code admission} reached Bedrock no later than
     * {@code reachedByMillis} (its answer's arrival less the time Bedrock says it worked on it),
     * learnt at {@code nowMillis}.
     */
    public void reached(Admission admission, long reachedByMillis, long nowMillis) {
        bucket.reached(admission, target(nowMillis), reachedByMillis, nowMillis);
        minute.reached(admission, reachedByMillis);
    }

    /** The request was admitted but never reached Bedrock: give its whole reservation back. */
    public void release(Admission admission, long nowMillis) {
        bucket.ended(admission, nowMillis);
        admission.close();
        correct(admission, Charge.NONE, nowMillis);
        minute.corrected(admission, budgets, amounts(Charge.NONE.minus(admission.reservation())), false, nowMillis);
    }

    /**
     * Bedrock throttled a request the pacer had admitted: nothing was consumed, but the quota is
     * tighter than the pacer believed. If the strict window had room for it while the last second's
     * reservations were bunched, a sub-second limit is the likely cause and the spacing floor
     * tightens ({@link BunchingGuard}); else, while headroom is probing, the probe gives back what it
     * took ({@link Headroom}); otherwise the target drops. While the guard is guarding, a call the bank
     * or the bucket model vouched for that started in a bunch is the guard's too
     * ({@link BunchingGuard#explains}): a sub-second refusal says nothing of banking or refunds. A
     * call only the clock minute's account sent is that learner's ({@link ClockMinuteWindow}), which
     * sends only within headroom's budget; a trusted minute below the quota that the meter found
     * full is the target's, at the minute account's fill (such a call only the minute sent is booked
     * in the budget too).
     */
    public void throttled(Admission admission, long nowMillis) {
        boolean vouched = bucket.paysFor(admission) || admission.banked() || bank.trusted();
        if (settings.headroom() && vouched
                && bunching.explains(feedback.target(nowMillis), admission.admittedAtMillis(), nowMillis)) {
            // a sub-second limit's answer: the bank's credit and the bucket model keep their trust
            release(admission, nowMillis);
            return;
        }
        Headroom.Refusal refusal = refusal(nowMillis); // with the refused call's own charge still in the window
        boolean modelPaid = bucket.throttled(admission, headroom.budgetAllows(nowMillis), target(nowMillis), nowMillis);
        ClockMinuteWindow.Answer minuteAnswer = minute.throttled(admission, budgets, amounts(admission.reservation()),
                nowMillis);
        release(admission, nowMillis);
        if (minuteAnswer == ClockMinuteWindow.Answer.QUICK_PACE && !modelPaid) {
            headroom.bookAnsweredThrottle(nowMillis); // the minute answers it: twice the even rate from now on
            return;
        }
        if (!modelPaid && minuteAnswer.fullMinute()) {
            // a trusted minute full for this pacer: where its account stood is where the meter refused
            if (minuteAnswer == ClockMinuteWindow.Answer.FULL_MINUTE_EXTRA) {
                headroom.bookThrottle(nowMillis); // an extra call: only the minute's account sent it
            }
            catchUp.throttled(nowMillis);
            feedback.onThrottle(nowMillis, minute.accountFill(budgets, nowMillis));
            return;
        }
        if (modelPaid || minuteAnswer != ClockMinuteWindow.Answer.NONE) {
            headroom.bookThrottle(nowMillis);
            return;
        }
        // a call the bank paid for that the window has no room for is the bank's evidence, even when
        // the target fell since it went and the credit would not cover it either
        boolean neededCredit = bank.trusted() && !windowHasRoom(admission.reservation(), false, nowMillis)
                && (admission.banked() || windowHasRoom(admission.reservation(), true, nowMillis));
        if (bank.throttled(neededCredit, admission.admittedAtMillis(), nowMillis)) {
            // the bank's probe: not held to headroom's budget (docs/headroom.md, "Banked capacity"), but
            // counted in it, so the probes that are held to it leave room for the bank's throttles
            headroom.bookAnsweredThrottle(nowMillis);
            return;
        }
        if (strictWindowHasRoom(admission.reservation(), nowMillis)
                && bunching.throttled(feedback.target(nowMillis), admission.admittedAtMillis(), nowMillis)) {
            return;
        }
        catchUp.throttled(nowMillis); // a throttle the pacer did not expect: spend no faster than evenly
        if (!headroom.throttled(admission.admittedAtMillis(), refusal, nowMillis)) {
            feedback.onThrottle(nowMillis, windowFill(nowMillis));
        }
    }

    /**
     * The share of the quota at which the meter last refused the pacer's own load (load the pacer
     * cannot see took the rest): {@link ThrottleFeedback}'s ceiling, the strict window's fill at
     * that refusal, at most the target then; 1 before any such refusal, never under the minimum
     * target. Where a meter's window is full for this pacer ({@link ClockMinuteWindow}).
     */
    private double refusedLevel() {
        double ceiling = feedback.ceiling();
        return ceiling > 0.0 ? Math.max(settings.minimumTarget(), Math.min(1.0, ceiling)) : 1.0;
    }

    private PacerState.HeadroomState headroomState(long capturedAt) {
        PacerState.HeadroomState state = headroom.export(capturedAt);
        double ceiling = feedback.ceiling();
        if (ceiling > 0.0) {
            state = state.withThrottleCeiling(ceiling, feedback.slowLine(capturedAt));
        }
        return catchUp.withdrawals() == 0 ? state : state.withCatchUpWithdrawals(catchUp.withdrawals());
    }

    /**
     * Where a call refused now stood for headroom, its own charge still in the window: the lift
     * never takes the strict window past the ceiling, so a window over it had room only by
     * forgiveness. Read when the refusal arrives, not when the call went (the calls since are in
     * the window too); the bank's, the bucket model's and the clock minute's refusals never get
     * here, though calls they paid for may be in the window beside this one.
     */
    private Headroom.Refusal refusal(long nowMillis) {
        double ceiling = settings.headroomCeiling();
        if (windowFill(nowMillis) > ceiling) {
            return Headroom.Refusal.OVER_STRICT_WINDOW;
        }
        return target(nowMillis) >= ceiling - CEILING_TOLERANCE ? Headroom.Refusal.AT_CEILING
                : Headroom.Refusal.BELOW_CEILING;
    }

    /** The strict window's charges as a share of the quota, in its fullest dimension. */
    private double windowFill(long nowMillis) {
        double fill = 0;
        for (DimensionBudget budget : budgets) {
            fill = Math.max(fill, budget.windowSum(nowMillis) / (double) budget.windowLimit(1.0));
        }
        return fill;
    }

    private boolean windowsEmpty(long nowMillis) {
        for (DimensionBudget budget : budgets) {
            if (!budget.windowEmpty(nowMillis)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the window as headroom has it now, with or without the bank's credit, takes the charge. */
    private boolean windowHasRoom(Charge charge, boolean credited, long nowMillis) {
        double target = target(nowMillis);
        for (DimensionBudget budget : budgets) {
            long amount = charge.amount(budget.dimension());
            if (budget.windowFit(amount, target, headroom.forgiveness(), credited, nowMillis) > nowMillis) {
                return false;
            }
        }
        return true;
    }

    /** Whether the strict bound (no forgiveness, no lift) would take the charge now. */
    private boolean strictWindowHasRoom(Charge charge, long nowMillis) {
        double target = feedback.target(nowMillis);
        for (DimensionBudget budget : budgets) {
            if (budget.windowSum(nowMillis) + charge.amount(budget.dimension()) > budget.windowLimit(target)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Throttles taken as extra calls within headroom's budget: its probe's, the refunding bucket's
     * and the clock-minute learner's (the bank's are booked in the budget but not held to it).
     */
    long budgetedThrottles() {
        return headroom.probeThrottles() + bucket.throttles() + minute.throttles();
    }

    /**
     * Whether a trusted clock minute is spent from its turn at the quick pace now
     * ({@link ClockMinuteWindow}; not while {@link BunchingGuard} holds a sub-second limit off, nor in
     * a bank's episode): most of a minute's calls are then open in the seconds after each turn, more
     * than a hand-off carries, so the drainer hands off before a turn rather than just after it
     * ({@code DrainWindow.beforeTurn}).
     */
    public boolean spendsTurnsQuickly(long nowMillis) {
        return minute.quickTurn() && !bunching.guarding(nowMillis) && !bank.banking(nowMillis);
    }

    /**
     * When a drainer whose pacer spends turns quickly looks once more before the next clock
     * minute's turn, after {@code nowMillis}: the last moment a call it starts itself counts in the
     * minute it leaves only ({@link ClockMinuteWindow#lookBeforeTurn}). Where calls outlive the
     * minute, a trusted minute re-spends the refunds of the calls that end within it; learnt at the
     * drainer's 500 ms poll alone, those of its last half second wait for the next turn.
     */
    public long lookBeforeTurn(long nowMillis) {
        return minute.lookBeforeTurn(nowMillis);
    }

    /** A request's cost as a share of one minute of its most constrained quota dimension. */
    public double normalizedCost(TokenUsage expected) {
        return normalize(Charge.reservation(quota, reserved(expected)));
    }

    /** What to reserve for a call estimated as {@code expected}: with headroom on, the input as learnt. */
    private TokenUsage reserved(TokenUsage expected) {
        return settings.headroom() ? inputScale.reserve(expected) : expected;
    }

    public PacerSnapshot snapshot(long nowMillis) {
        Map<QuotaDimension, Long> windowSums = new EnumMap<>(QuotaDimension.class);
        long nextSlot = nowMillis;
        for (DimensionBudget budget : budgets) {
            windowSums.put(budget.dimension(), budget.windowSum(nowMillis));
            nextSlot = Math.max(nextSlot, budget.nextSlot(nowMillis));
        }
        return new PacerSnapshot(target(nowMillis), slowStart.factor(nowMillis), windowSums, nextSlot,
                admitted, feedback.throttles() + headroom.probeThrottles() + bunching.throttles() + bank.throttles()
                        + bucket.throttles() + minute.throttles());
    }

    private Candidate choose(List<Candidate> eligible) {
        Lane lane = null;
        double laneStart = Double.MAX_VALUE;
        for (Candidate candidate : eligible) {
            double start = lanes.start(candidate.lane());
            boolean better = start < laneStart
                    || (start == laneStart && candidate.lane().ordinal() < lane.ordinal());
            if (better) {
                lane = candidate.lane();
                laneStart = start;
            }
        }
        FairShare<String> tenants = tenantsByLane.get(lane);
        Candidate best = null;
        double bestStart = Double.MAX_VALUE;
        for (Candidate candidate : eligible) {
            if (candidate.lane() != lane) {
                continue;
            }
            double start = tenants.start(candidate.tenant());
            if (best == null || start < bestStart
                    || (start == bestStart && WITHIN_TENANT.compare(candidate, best) < 0)) {
                best = candidate;
                bestStart = start;
            }
        }
        return best;
    }

    private Admission admit(Candidate candidate, Charge charge, double target, double spacingMultiple,
            long nowMillis) {
        double rateShare = target * slowStart.factorForAdmission(nowMillis);
        // the clock minute's spacing (up to its quick turn's) or the catch-up's (at most twice the even rate)
        double spacingShare = rateShare * Math.max(spacingMultiple, catchUpFactor(nowMillis));
        Charge spacing = Charge.reservation(quota, outputShare.spaced(reserved(candidate.expected())));
        SlidingWindowLedger.Entry[] entries = new SlidingWindowLedger.Entry[budgets.length];
        long[] spaced = new long[budgets.length];
        for (int i = 0; i < budgets.length; i++) {
            QuotaDimension dimension = budgets[i].dimension();
            spaced[i] = spacing.amount(dimension);
            entries[i] = budgets[i].charge(charge.amount(dimension), spaced[i], spacingShare, nowMillis);
        }
        double cost = normalize(charge);
        bucket.charged(amounts(charge), target, nowMillis);
        served(candidate, cost, rateShare, nowMillis);
        return new Admission(candidate, charge, cost, nowMillis, entries, spaced);
    }

    /**
     * The spacing's multiple of the even rate: none while the bank spends beside the window (twice in
     * all), or while the guard holds a sub-second limit off (quicker starts are what it refuses).
     */
    private double catchUpFactor(long nowMillis) {
        return bank.banking(nowMillis) || bunching.guarding(nowMillis) ? 1.0 : catchUp.factor();
    }

    /** The bookkeeping every admission shares: fair-share tags, tenant caps, counters, learners. */
    private void served(Candidate candidate, double cost, double rateShare, long nowMillis) {
        lanes.served(candidate.lane(), cost, laneWeight(candidate.lane()));
        tenantsByLane.get(candidate.lane()).served(candidate.tenant(), cost, 1.0);
        Double cap = settings.tenantCaps().get(candidate.tenant());
        if (cap != null) {
            long base = Math.max(tenantNextSlotMicros.getOrDefault(candidate.tenant(), Long.MIN_VALUE),
                    nowMillis * 1_000 - DimensionBudget.LATENESS_MICROS);
            tenantNextSlotMicros.put(candidate.tenant(), base + tenantInterval(cost, cap, rateShare));
        }
        admitted++;
        headroom.admitted(nowMillis);
        bunching.admitted(cost, rateShare, nowMillis);
    }

    /** A call the bank pays for: in the window and its credit, outside the spacing and slow start. */
    private Admission admitBanked(Candidate candidate, Charge charge, double target, long nowMillis) {
        Charge spacing = Charge.reservation(quota, outputShare.spaced(reserved(candidate.expected())));
        long[] amounts = amounts(charge);
        SlidingWindowLedger.Entry[] entries = new SlidingWindowLedger.Entry[budgets.length];
        SlidingWindowLedger.Entry[] credits = new SlidingWindowLedger.Entry[budgets.length];
        long[] spaced = new long[budgets.length];
        for (int i = 0; i < budgets.length; i++) {
            spaced[i] = spacing.amount(budgets[i].dimension());
            SlidingWindowLedger.Entry[] booked = budgets[i].chargeBanked(amounts[i], spaced[i], nowMillis);
            entries[i] = booked[0];
            credits[i] = booked[1];
        }
        double cost = normalize(charge);
        bank.spend(amounts, cost, target, budgets, nowMillis);
        bucket.charged(amounts, target, nowMillis);
        served(candidate, cost, target, nowMillis);
        return new Admission(candidate, charge, cost, nowMillis, entries, spaced, credits);
    }

    private long[] amounts(Charge charge) {
        long[] amounts = new long[budgets.length];
        for (int i = 0; i < budgets.length; i++) {
            amounts[i] = charge.amount(budgets[i].dimension());
        }
        return amounts;
    }

    private void correct(Admission admission, Charge actual, long nowMillis) {
        Charge delta = actual.minus(admission.reservation());
        double rateShare = target(nowMillis) * slowStart.factor(nowMillis);
        long[] refunds = new long[budgets.length];
        for (int i = 0; i < budgets.length; i++) {
            refunds[i] = -delta.amount(budgets[i].dimension());
        }
        bucket.refunded(admission, refunds, target(nowMillis), nowMillis);
        for (int i = 0; i < budgets.length; i++) {
            QuotaDimension dimension = budgets[i].dimension();
            if (admission.banked()) {
                budgets[i].adjustBanked(admission.entry(i), admission.credit(i), delta.amount(dimension), nowMillis);
            } else {
                budgets[i].adjust(admission.entry(i), delta.amount(dimension),
                        actual.amount(dimension) - admission.spaced(i), rateShare * catchUpFactor(nowMillis), nowMillis);
            }
        }

        Candidate candidate = admission.candidate();
        double refund = admission.normalizedCost() - normalize(actual);
        if (refund > 0) {
            lanes.refund(candidate.lane(), refund, laneWeight(candidate.lane()));
            tenantsByLane.get(candidate.lane()).refund(candidate.tenant(), refund, 1.0);
        }
        Double cap = settings.tenantCaps().get(candidate.tenant());
        Long slot = tenantNextSlotMicros.get(candidate.tenant());
        if (cap != null && slot != null) {
            long floor = nowMillis * 1_000 - DimensionBudget.LATENESS_MICROS;
            tenantNextSlotMicros.put(candidate.tenant(), Math.max(floor, slot - tenantInterval(refund, cap, rateShare)));
        }
    }

    /** The share of the quota spent now: the feedback's target, lifted by headroom up to its ceiling. */
    private double target(long nowMillis) {
        double lift = headroom.lift();
        double base = feedback.target(nowMillis);
        return lift == 0.0 ? base : Math.min(settings.headroomCeiling(), base + lift);
    }

    private long tenantSlot(String tenant, long nowMillis) {
        Long micros = tenantNextSlotMicros.get(tenant);
        return micros == null ? nowMillis : Math.floorDiv(micros + 999, 1_000);
    }

    private static long tenantInterval(double normalizedCost, double cap, double rateShare) {
        return Math.round(normalizedCost * 60_000_000.0 / (cap * rateShare));
    }

    private double laneWeight(Lane lane) {
        double bulk = settings.bulkShareUnderContention();
        return lane == Lane.BULK ? bulk : 1.0 - bulk;
    }

    private double normalize(Charge charge) {
        double cost = 0;
        for (DimensionBudget budget : budgets) {
            cost = Math.max(cost, (double) charge.amount(budget.dimension()) / budget.quotaPerMinute());
        }
        return cost;
    }
}
