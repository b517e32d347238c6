package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.QuotaDimension;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * The bucket model is never above the token bucket it models, however late its calls reach it:
 * random runs of calls, each charged to the model at admission and to a reference bucket (one
 * minute of quota, refilled at the quota, refusing what it does not hold) when it arrives, a lag
 * later; refunded by the bucket when the call ends and by the model when the drainer sees it,
 * later still, with the call's end time; some calls made by the drainer itself (started at
 * admission, reaching the bucket up to 3 s later, their answer bounding when), some refused, idle
 * minutes between bursts. Each run's other lags lie within {@link RefundingBucket#LAG_MARGIN_MILLIS}
 * of one bound, so the span the model learns from them covers them all. The pacer's 60 s ledger is
 * charged as the pacer charges it, so the model proves the meter banks in every run and refills at
 * the quota from then (half the runs resume proven from the start); the statistics say so.
 *
 * <p>Two gaps are allowed, and counted. Until a call the drainer made itself is answered, the
 * model counts the refill since its start, which a bucket at its cap did not get (the answer
 * gives it back). And what the bucket loses at its cap (refill, or a refund past it) while a call
 * has ended that the model has not yet seen end: the model books a late refund as of the call's
 * end, against how close it stood to its ceiling since, which closes that gap where every call
 * starts at once (3,000 tries without the allowance, measured), but not where a call made in the
 * drainer reached the bucket late meanwhile (seed -115: 1.1k above, within the 3.2k so lost).
 */
class BucketModelInTransitPropertiesTest {

    /** The quota of {@link RefundingBucketTest#budgets()}. */
    private static final long QUOTA = 120_000;

    /**
     * @param reachedBy for a call the drainer made itself, the latest its answer says it can have
     *                  arrived, or -1 when no answer said (its end is seen as the status's)
     */
    private record Call(long admittedAt, long amount, long lag, long duration, long used, long seenAfter,
                        boolean inline, long reachedBy) {
        long arrives() {
            return admittedAt + lag;
        }

        long ends() {
            return arrives() + duration;
        }

        long seen() {
            return ends() + seenAfter;
        }
    }

    /** In the order events at one instant happen: a call is charged to the model before it can arrive. */
    private enum Kind { MODEL_CHARGE, METER_CHARGE, METER_REFUND, MODEL_SEES }

    private record Event(long at, Kind kind, int call) {
    }

    /** A call the drainer made itself, charged while the meter was just below its cap, reaches it late. */
    @Example
    void aCallMadeInTheDrainerReachesAMeterThatFilledMeanwhile() {
        theModelIsNeverAboveTheBucketItsCallsReachLate(-1010779L);
    }

    /** Refunds booked at the cap before the model sees them, the model refilling at the quota once proven. */
    @Example
    void refundsTheBucketBookedAtItsCapAreNotCreditedWhole() {
        theModelIsNeverAboveTheBucketItsCallsReachLate(-780322L);
    }

    @Property(tries = 1000)
    void theModelIsNeverAboveTheBucketItsCallsReachLate(@ForAll long seed) {
        Random random = new Random(seed);
        double share = 0.5 + 0.5 * random.nextDouble();
        boolean proven = random.nextBoolean();
        long lagBound = random.nextInt(5_001);
        // a call the drainer makes itself starts at once, or reaches the meter after a cold client's set-up
        long inlineLagBound = random.nextBoolean() ? 0 : random.nextInt(3_001);
        long lagFloor = Math.max(0, lagBound - RefundingBucket.LAG_MARGIN_MILLIS);
        List<Call> calls = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < 120; i++) {
            at += random.nextInt(20) == 0 ? 61_000 + random.nextInt(10_000) : random.nextInt(3_000);
            long amount = 1_000 + random.nextInt(40_000);
            boolean inline = random.nextInt(4) == 0;
            long lag = inline ? random.nextInt((int) inlineLagBound + 1)
                    : lagFloor + random.nextInt((int) (lagBound - lagFloor) + 1);
            long duration = random.nextInt(20_000);
            long reachedBy = !inline || random.nextInt(5) == 0 ? -1
                    : at + lag + random.nextInt((int) Math.min(500, duration) + 1);
            calls.add(new Call(at, amount, lag, duration, random.nextInt((int) amount + 1),
                    random.nextInt(2_000), inline, reachedBy));
        }
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            events.add(new Event(call.admittedAt(), Kind.MODEL_CHARGE, i));
            events.add(new Event(call.arrives(), Kind.METER_CHARGE, i));
            events.add(new Event(call.ends(), Kind.METER_REFUND, i));
            events.add(new Event(call.seen(), Kind.MODEL_SEES, i));
        }
        // at a tie the model learns of an end after the meter books it
        events.sort(Comparator.comparingLong(Event::at).thenComparing(Event::kind));

        // the pacer's 60 s ledger, charged as the pacer charges it: a call admitted past 1.1 × the
        // quota in it and in its clock minute that the bucket takes proves the meter banks
        DimensionBudget[] budgets = RefundingBucketTest.budgets();
        SlidingWindowLedger.Entry[] entries = new SlidingWindowLedger.Entry[calls.size()];
        RefundingBucket model = new RefundingBucket(PacerSettings.defaults(), budgets);
        if (proven) {
            // a successor of a pacer that proved the meter banks, resumed with nothing banked: it
            // refills at the quota and, once full, gets back what the target held back
            model.restore(new PacerState.BucketModelState(Map.of(QuotaDimension.TOKENS, 0L), true, true, 0,
                    PacerState.NEVER, RefundingBucket.RETRUST_MILLIS), 0);
        }
        Admission[] admissions = new Admission[calls.size()];
        boolean[] refused = new boolean[calls.size()];
        double meter = QUOTA;
        long meterAt = 0;
        long lastCharge = Long.MIN_VALUE;
        double lost = 0;
        int proofs = 0;
        for (Event event : events) {
            double refill = (event.at() - meterAt) * QUOTA / 60_000.0;
            if (modelBehind(calls, refused, meterAt)) {
                lost += Math.max(0, meter + refill - QUOTA);
            }
            meter = Math.min(QUOTA, meter + refill);
            meterAt = event.at();
            Call call = calls.get(event.call());
            long[] amount = {call.amount()};
            switch (event.kind()) {
                case METER_CHARGE -> {
                    refused[event.call()] = meter < call.amount();
                    if (!refused[event.call()]) {
                        meter -= call.amount();
                    }
                }
                case METER_REFUND -> {
                    if (!refused[event.call()]) {
                        if (modelBehind(calls, refused, event.at())) {
                            lost += Math.max(0, meter + call.amount() - call.used() - QUOTA);
                        }
                        meter = Math.min(QUOTA, meter + call.amount() - call.used());
                    }
                }
                case MODEL_CHARGE -> {
                    if (lastCharge == Long.MIN_VALUE || event.at() - lastCharge >= 60_000) {
                        model.idleMinute(share, event.at()); // the pacer's windows are empty
                    }
                    lastCharge = event.at();
                    entries[event.call()] = budgets[0].charge(call.amount(), call.amount(), share, event.at());
                    model.charged(amount, share, event.at());
                    admissions[event.call()] = RefundingBucketTest.admission("c" + event.call(), call.admittedAt());
                    model.watch(admissions[event.call()], amount, event.at());
                    if (call.inline()) {
                        model.started(admissions[event.call()], share, event.at());
                    }
                }
                case MODEL_SEES -> {
                    Admission admission = admissions[event.call()];
                    if (refused[event.call()]) {
                        budgets[0].adjust(entries[event.call()], -call.amount(), 0, share, event.at());
                        model.throttled(admission, true, share, event.at());
                        model.ended(admission, event.at());
                        model.refunded(admission, amount, share, event.at());
                    } else {
                        if (call.reachedBy() >= 0) {
                            model.reached(admission, share, call.reachedBy(), event.at());
                        }
                        budgets[0].adjust(entries[event.call()], -(call.amount() - call.used()), 0, share, event.at());
                        model.settled(admission, call.arrives(), call.ends());
                        proofs += model.proven() ? 1 : 0;
                        model.refunded(admission, new long[] {call.amount() - call.used()}, share, event.at());
                    }
                }
            }
            long level = RefundingBucketTest.level(model, share, event.at());
            double unanswered = unansweredLag(calls, event.at());
            assertThat(level).as("at %d ms (%s of call %d, lags up to %d ms, %d in the drainer): the bucket holds"
                            + " %.0f, %.0f lost at its cap, %.0f refilled before unanswered calls arrived",
                    event.at(), event.kind(), event.call(), lagBound, inlineLagBound, meter, lost, unanswered)
                    .isLessThanOrEqualTo((long) Math.floor(meter + lost + unanswered) + 1);
        }
        // the runs must reach the model refilled at the quota, with what the target held back given back
        Statistics.collect(proofs > 0 ? "proven in the run" : proven ? "resumed proven" : "never proven");
        Statistics.coverage(checker -> checker.check("proven in the run").percentage(p -> p >= 20));
    }

    /**
     * The quota's refill over the lag of each call the drainer made itself whose end the model has
     * not seen at {@code atMillis}: until its answer says when it arrived, the model counts the
     * refill from its start, which a bucket at its cap did not get.
     */
    private static double unansweredLag(List<Call> calls, long atMillis) {
        double owed = 0;
        for (Call call : calls) {
            if (call.inline() && call.admittedAt() <= atMillis && call.seen() > atMillis) {
                owed += QUOTA * (Math.min(atMillis, call.arrives()) - call.admittedAt()) / 60_000.0;
            }
        }
        return owed;
    }

    /** Whether at {@code atMillis} a call has ended without the model seeing it yet (or ends now, seen later). */
    private static boolean modelBehind(List<Call> calls, boolean[] refused, long atMillis) {
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            if (!refused[i] && call.ends() <= atMillis && call.seen() > atMillis) {
                return true;
            }
        }
        return false;
    }
}
