package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PacerHandoffTest {

    /** 600k TPM at target 1.0 regenerates 10 tokens per millisecond. */
    private static final Quota TEN_PER_MS = Quota.tokensPerMinute(600_000);
    private static final PacerSettings STEADY = PacerSettings.builder()
            .targetUtilization(1.0).minimumTarget(0.5).slowStartMillis(0).headroom(false).build();
    private static final PacerSettings RAMP = STEADY.toBuilder()
            .slowStartMillis(1_000).slowStartFloor(0.5).idleMillis(60_000).build();

    /**
     * One drainer at a time over a backlog of equal requests, on a fake clock. Each admission is
     * settled at once at its reservation, so spacing and window alone decide the trace.
     */
    private static final class Drainer {
        private final long tokens;
        private Pacer pacer;
        private long now;
        private int sequence;
        private final List<Long> admissions = new ArrayList<>();

        Drainer(Pacer pacer, long tokens, long from) {
            this.pacer = pacer;
            this.tokens = tokens;
            this.now = from;
        }

        /** Admits from the backlog until {@code until} (exclusive); returns "id@millis" for each. */
        List<String> until(long until) {
            List<String> trace = new ArrayList<>();
            while (now < until) {
                Candidate head = new Candidate("r" + sequence, Lane.BULK, "t", TokenUsage.of(tokens, 0), 0, Long.MAX_VALUE);
                Decision decision = pacer.decide(List.of(head), now);
                if (decision instanceof Decision.Admit admit) {
                    trace.add(head.requestId() + "@" + now);
                    admissions.add(now);
                    sequence++;
                    pacer.settle(admit.admission(), head.expected(), now);
                } else {
                    now = Math.min(until, ((Decision.WaitUntil) decision).atMillis());
                }
            }
            return trace;
        }

        /** The lease moves: the state is exported now and a successor resumes {@code gapMillis} later. */
        PacerState handoff(long gapMillis) {
            PacerState state = pacer.export(now);
            now += gapMillis;
            pacer = Pacer.resume(pacer.quota(), pacer.settings(), state, now);
            return state;
        }

        /** The successor starts empty instead, as a drainer without handoff state would. */
        void restartEmpty(long gapMillis) {
            now += gapMillis;
            pacer = Pacer.create(pacer.quota(), pacer.settings());
        }

        long admittedBetween(long from, long to) {
            return admissions.stream().filter(at -> at >= from && at < to).count();
        }
    }

    @Test
    void aBusyPacerHandedOffMidBurstContinuesAtTheSameSpacing() {
        // 60k tokens each: one admission every 6 s fills the minute exactly.
        Drainer handedOff = new Drainer(Pacer.create(TEN_PER_MS, STEADY), 60_000, 0);
        Drainer restarted = new Drainer(Pacer.create(TEN_PER_MS, STEADY), 60_000, 0);

        List<String> before = handedOff.until(20_000);
        restarted.until(20_000);
        handedOff.handoff(0);
        restarted.restartEmpty(0);

        assertThat(before).containsExactly("r0@0", "r1@6000", "r2@12000", "r3@18000");
        // The successor waits for the slot its predecessor still owed at the handoff (20 s).
        assertThat(handedOff.until(60_000)).containsExactly(
                "r4@24000", "r5@30000", "r6@36000", "r7@42000", "r8@48000", "r9@54000");
        // An empty successor sends at once and keeps its own phase: eleven a minute, 660k of 600k.
        assertThat(restarted.until(60_000)).containsExactly(
                "r4@20000", "r5@26000", "r6@32000", "r7@38000", "r8@44000", "r9@50000", "r10@56000");
        assertThat(handedOff.admittedBetween(0, 60_000)).isEqualTo(10);
        assertThat(restarted.admittedBetween(0, 60_000)).isEqualTo(11);
    }

    @Test
    void aHandoffBetweenSmallRequestsKeepsTheirCadence() {
        Drainer drainer = new Drainer(Pacer.create(TEN_PER_MS, STEADY), 1_000, 0);
        drainer.until(30_050);

        drainer.handoff(0);

        // r300 went at 30 000; the spacing owes 100 ms, so the successor sends the next at 30 100.
        assertThat(drainer.until(30_400)).containsExactly("r301@30100", "r302@30200", "r303@30300");
    }

    /**
     * What a handoff costs: a successor sees each 5 s bucket leave the window in one step instead of
     * request by request, so while it refills a full window it waits up to one bucket longer.
     */
    @Test
    void aHandoffAtFullLoadCostsAtMostOneBucketOfQuotaInTheFollowingMinute() {
        Drainer alone = new Drainer(Pacer.create(TEN_PER_MS, STEADY), 1_000, 0);
        Drainer handedOff = new Drainer(Pacer.create(TEN_PER_MS, STEADY), 1_000, 0);
        alone.until(240_000);
        handedOff.until(90_000);
        handedOff.handoff(0);
        handedOff.until(240_000);

        assertThat(alone.admittedBetween(90_000, 150_000)).isEqualTo(600);
        assertThat(handedOff.admittedBetween(30_000, 90_000)).isEqualTo(600);
        assertThat(handedOff.admittedBetween(90_000, 150_000)).isEqualTo(554);
        assertThat(handedOff.admittedBetween(150_000, 210_000)).isEqualTo(600);
        long bucketOfQuota = PacerState.BUCKET_MILLIS * 600_000 / 60_000 / 1_000;
        assertThat(600 - handedOff.admittedBetween(90_000, 150_000)).isLessThanOrEqualTo(bucketOfQuota);
    }

    @Test
    void aHandoffRightAfterAThrottleKeepsTheLoweredTarget() {
        PacerSettings settings = STEADY.toBuilder().throttleBackoff(0.8).recoveryPerMinute(0.05).build();
        Pacer predecessor = Pacer.create(TEN_PER_MS, settings);
        Admission throttled = ((Decision.Admit) predecessor.decide(List.of(bulk("a", 1_000)), 0)).admission();
        predecessor.throttled(throttled, 1_000);

        Drainer drainer = new Drainer(predecessor, 1_000, 1_000);
        // The released reservation leaves the lateness allowance to spend at once, then 125 ms apart.
        assertThat(drainer.until(1_300)).containsExactly("r0@1000", "r1@1000", "r2@1000", "r3@1125", "r4@1250");
        PacerState state = drainer.handoff(0);

        assertThat(state.target()).isCloseTo(0.8, within(1e-3));
        assertThat(state.lastThrottleAtMillis()).isEqualTo(1_000);
        // Still 8 tokens per ms after the handoff; a fresh pacer would go back to 10 at once.
        assertThat(drainer.until(1_800)).containsExactly("r5@1375", "r6@1500", "r7@1625", "r8@1750");
        assertThat(new Drainer(Pacer.create(TEN_PER_MS, settings), 1_000, 1_300).until(1_800))
                .containsExactly("r0@1300", "r1@1400", "r2@1500", "r3@1600", "r4@1700");
        // Recovery goes on along the same line: 0.05 a minute after the throttle at 1 s.
        assertThat(drainer.pacer.snapshot(61_000).target()).isCloseTo(0.85, within(1e-9));
        assertThat(drainer.pacer.snapshot(91_000).target())
                .isCloseTo(predecessor.snapshot(91_000).target(), within(1e-9));
    }

    @Test
    void aThrottleSoonAfterTheHandoffBelongsToThePredecessorsEpisode() {
        PacerSettings settings = STEADY.toBuilder().throttleBackoff(0.8).recoveryPerMinute(0).build();
        Pacer predecessor = Pacer.create(TEN_PER_MS, settings);
        Admission first = ((Decision.Admit) predecessor.decide(List.of(bulk("a", 1_000)), 0)).admission();
        predecessor.throttled(first, 1_000);

        Pacer successor = Pacer.resume(TEN_PER_MS, settings, predecessor.export(1_200), 1_200);
        Admission second = ((Decision.Admit) successor.decide(List.of(bulk("b", 1_000)), 1_200)).admission();
        successor.throttled(second, 1_500);

        assertThat(successor.snapshot(1_500).target()).isEqualTo(0.8);
        Admission third = ((Decision.Admit) successor.decide(List.of(bulk("c", 1_000)), 2_500)).admission();
        successor.throttled(third, 2_500);
        assertThat(successor.snapshot(2_500).target()).isCloseTo(0.64, within(1e-9));
    }

    @Test
    void aStaleStateBehavesLikeAFreshPacer() {
        Drainer drainer = new Drainer(Pacer.create(TEN_PER_MS, RAMP), 1_000, 0);
        drainer.until(10_000);
        PacerState state = drainer.pacer.export(10_000);

        Pacer resumed = Pacer.resume(TEN_PER_MS, RAMP, state, 130_000);
        Pacer fresh = Pacer.create(TEN_PER_MS, RAMP);

        List<String> resumedTrace = new Drainer(resumed, 1_000, 130_000).until(131_000);
        // Idle for two minutes: the successor ramps from half rate, as a fresh pacer does.
        assertThat(resumedTrace).containsExactly("r0@130000", "r1@130200", "r2@130367", "r3@130513",
                "r4@130646", "r5@130767", "r6@130880", "r7@130987");
        assertThat(new Drainer(fresh, 1_000, 130_000).until(131_000)).isEqualTo(resumedTrace);
        assertThat(resumed.snapshot(130_000)).isEqualTo(fresh.snapshot(130_000));
    }

    @Test
    void theSuccessorOfABusyPacerDoesNotStartSlowly() {
        Drainer drainer = new Drainer(Pacer.create(TEN_PER_MS, RAMP), 1_000, 0);
        drainer.until(3_050);

        drainer.handoff(500);

        // Half a second between the drainers is not an idle period: full rate at once, where an empty
        // successor would ramp up from half rate again.
        assertThat(drainer.until(3_900)).containsExactly("r28@3550", "r29@3650", "r30@3750", "r31@3850");
        assertThat(new Drainer(Pacer.create(TEN_PER_MS, RAMP), 1_000, 3_550).until(3_900))
                .containsExactly("r0@3550", "r1@3750");
    }

    @Test
    void aSuccessorResumingAfterTheIdlePeriodStartsSlowlyEvenWithChargesInTheWindow() {
        PacerSettings shortIdle = RAMP.toBuilder().idleMillis(20_000).build();
        Drainer drainer = new Drainer(Pacer.create(TEN_PER_MS, shortIdle), 1_000, 0);
        drainer.until(3_000);

        PacerState state = drainer.handoff(30_000);

        assertThat(drainer.pacer.snapshot(33_000).windowSums()).containsEntry(QuotaDimension.TOKENS, 28_000L);
        assertThat(drainer.pacer.snapshot(33_000).slowStartFactor()).isEqualTo(0.5);
        assertThat(drainer.until(33_400)).containsExactly("r28@33000", "r29@33200", "r30@33367");
        assertThat(state.lastAdmissionAtMillis()).isEqualTo(2_987);
    }

    @Test
    void admissionsStillOpenAtTheHandoffStayChargedAtTheirReservation() {
        Quota claude = Quota.tokensPerMinute(600_000).withOutputBurndown(5);
        Pacer predecessor = Pacer.create(claude, STEADY);
        Admission open = ((Decision.Admit) predecessor.decide(
                List.of(new Candidate("open", Lane.BULK, "t", TokenUsage.of(1_000, 1_000), 0, Long.MAX_VALUE)), 0))
                .admission();
        Admission settled = ((Decision.Admit) predecessor.decide(
                List.of(new Candidate("done", Lane.BULK, "t", TokenUsage.of(1_000, 1_000), 0, Long.MAX_VALUE)), 600))
                .admission();
        predecessor.settle(settled, TokenUsage.of(1_000, 200), 700);

        PacerState state = predecessor.export(800);
        predecessor.settle(open, TokenUsage.of(1_000, 10), 900);
        Pacer successor = Pacer.resume(claude, STEADY, state, 1_000);

        assertThat(open.reservation().tokens()).isEqualTo(6_000);
        assertThat(successor.snapshot(1_000).windowSums()).containsEntry(QuotaDimension.TOKENS, 6_000L + 2_000L);
        assertThat(predecessor.snapshot(1_000).windowSums()).containsEntry(QuotaDimension.TOKENS, 1_050L + 2_000L);
    }

    @Test
    void theStateStaysSmallWhateverTheRequestRate() {
        Quota everything = new Quota(6_000_000, 60_000, 6_000_000, 600_000, 5);
        Drainer drainer = new Drainer(Pacer.create(everything, STEADY), 10, 0);
        drainer.until(120_000);

        PacerState state = drainer.pacer.export(120_000);

        assertThat(drainer.admittedBetween(60_000, 120_000)).isEqualTo(60_000);
        assertThat(state.dimensions()).containsOnlyKeys(QuotaDimension.values());
        for (QuotaDimension dimension : QuotaDimension.values()) {
            PacerState.DimensionState dimensionState = state.dimensions().get(dimension);
            assertThat(dimensionState.charges()).hasSizeLessThanOrEqualTo(PacerState.MAX_CHARGES);
            long sum = dimensionState.charges().stream().mapToLong(PacerState.WindowCharge::amount).sum();
            assertThat(sum).as("%s window", dimension)
                    .isEqualTo(drainer.pacer.snapshot(120_000).windowSums().get(dimension));
        }
        // One request a millisecond: twelve 5 s buckets, each dated at its last request.
        List<PacerState.WindowCharge> requests = state.dimensions().get(QuotaDimension.REQUESTS).charges();
        assertThat(requests).hasSize(12);
        assertThat(requests.get(0)).isEqualTo(new PacerState.WindowCharge(64_999, 4_999));
        assertThat(requests.get(11)).isEqualTo(new PacerState.WindowCharge(119_999, 5_000));
        assertThat(state.dimensions().get(QuotaDimension.OUTPUT_TOKENS).charges()).isEmpty();
    }

    @Test
    void eachBucketIsDatedAtItsLatestChargeSoNothingLeavesTheWindowEarly() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        admitAt(pacer, 1_000, 1_000);
        admitAt(pacer, 2_000, 3_000);
        admitAt(pacer, 1_000, 6_000);

        PacerState state = pacer.export(7_000);

        assertThat(state.dimensions().get(QuotaDimension.TOKENS).charges()).containsExactly(
                new PacerState.WindowCharge(3_000, 3_000), new PacerState.WindowCharge(6_000, 1_000));
        Pacer successor = Pacer.resume(TEN_PER_MS, STEADY, state, 7_000);
        // The charge made at 1 s would have left at 61 s; the successor holds it until 63 s.
        assertThat(successor.snapshot(61_500).windowSums()).containsEntry(QuotaDimension.TOKENS, 4_000L);
        assertThat(pacer.snapshot(61_500).windowSums()).containsEntry(QuotaDimension.TOKENS, 3_000L);
        assertThat(successor.snapshot(63_000).windowSums()).containsEntry(QuotaDimension.TOKENS, 1_000L);
    }

    @Test
    void exportingAgainRightAfterResumingGivesTheSameState() {
        PacerSettings settings = RAMP.toBuilder().tenantCap("capped", 0.01).build();
        Pacer pacer = Pacer.create(TEN_PER_MS.withRpm(6_000), settings);
        for (long at = 0; at < 70_000; at += 700) {
            Decision decision = pacer.decide(List.of(request("capped", 900), request("other", 1_200)), at);
            if (decision instanceof Decision.Admit admit && at % 9_800 == 0) {
                pacer.throttled(admit.admission(), at + 50);
            }
        }
        PacerState state = pacer.export(70_000);

        PacerState again = Pacer.resume(TEN_PER_MS.withRpm(6_000), settings, state, 70_000).export(70_000);

        assertThat(state.target()).isLessThan(1.0);
        assertThat(state.tenantNextSlotMicros()).containsKey("capped");
        assertThat(again).isEqualTo(state);
    }

    @Test
    void aLowerQuotaStretchesTheSpacingStillOwedAndAppliesToTheCarriedCharges() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        admitAt(pacer, 60_000, 0);
        PacerState state = pacer.export(2_000);
        Quota halved = Quota.tokensPerMinute(300_000);

        Pacer successor = Pacer.resume(halved, STEADY, state, 2_000);

        // 4 s still owed at 10 tokens per ms is 8 s at 5.
        assertThat(successor.snapshot(2_000).nextSlotMillis()).isEqualTo(10_000);
        assertThat(successor.snapshot(2_000).windowSums()).containsEntry(QuotaDimension.TOKENS, 60_000L);
        assertThat(successor.decide(List.of(bulk("big", 250_000)), 10_000)).isEqualTo(new Decision.WaitUntil(60_000));
    }

    @Test
    void aHigherQuotaDoesNotShortenTheSpacingStillOwed() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        admitAt(pacer, 60_000, 0);

        Pacer successor = Pacer.resume(Quota.tokensPerMinute(1_200_000), STEADY, pacer.export(2_000), 2_000);

        assertThat(successor.snapshot(2_000).nextSlotMillis()).isEqualTo(6_000);
    }

    @Test
    void aHigherBurndownInflatesCarriedTokenChargesAndANewlyLimitedDimensionStartsEmpty() {
        Quota before = Quota.tokensPerMinute(600_000).withOutputBurndown(1);
        Pacer pacer = Pacer.create(before, STEADY);
        pacer.decide(List.of(new Candidate("x", Lane.BULK, "t", TokenUsage.of(1_000, 1_000), 0, Long.MAX_VALUE)), 0);
        PacerState state = pacer.export(100);

        Pacer successor = Pacer.resume(before.withOutputBurndown(5).withRpm(10), STEADY, state, 100);

        Map<QuotaDimension, Long> expected = new EnumMap<>(QuotaDimension.class);
        expected.put(QuotaDimension.TOKENS, 10_000L);
        expected.put(QuotaDimension.REQUESTS, 0L);
        assertThat(successor.snapshot(100).windowSums()).isEqualTo(expected);
        Pacer lower = Pacer.resume(before.withOutputBurndown(5), STEADY, state, 100);
        Pacer back = Pacer.resume(before, STEADY, lower.export(100), 100);
        assertThat(back.snapshot(100).windowSums()).containsEntry(QuotaDimension.TOKENS, 10_000L);
    }

    @Test
    void aSuccessorWhoseClockIsBehindBooksNothingBeforeTheCarriedCharges() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        admitAt(pacer, 1_000, 5_000);
        PacerState state = pacer.export(5_200);

        // The successor's clock reads 4 980 when the predecessor's reads 5 200.
        Pacer successor = Pacer.resume(TEN_PER_MS, STEADY, state, 4_980);
        admitAt(successor, 500, 4_990);
        PacerState next = successor.export(4_995);

        assertThat(next.capturedAtMillis()).isEqualTo(5_000);
        assertThat(next.dimensions().get(QuotaDimension.TOKENS).charges())
                .containsExactly(new PacerState.WindowCharge(5_000, 1_500));
    }

    @Test
    void theSuccessorSpacesAtTheOutputShareItsPredecessorLearnt() {
        Pacer predecessor = Pacer.create(TEN_PER_MS, RAMP);
        long at = 0;
        for (int i = 0; i < 80; i++) {
            Decision decision = predecessor.decide(List.of(answering("p" + i, 900)), at);
            if (decision instanceof Decision.Admit admit) {
                predecessor.settle(admit.admission(), TokenUsage.of(100, 90), at + 10);
            }
            at += 1_000;
        }
        PacerState state = predecessor.export(at);

        Pacer successor = Pacer.resume(TEN_PER_MS, RAMP, state, at);

        assertThat(state.outputShare()).isLessThan(0.2);
        assertThat(successor.export(at).outputShare()).isEqualTo(state.outputShare());
        Decision first = successor.decide(List.of(answering("s", 900)), at);
        assertThat(first).isInstanceOf(Decision.Admit.class);
        long spacedOutput = (long) Math.ceil(900 * state.outputShare());
        assertThat(successor.snapshot(at).nextSlotMillis() - at).isEqualTo((100 + spacedOutput + 9) / 10);
    }

    @Test
    void aStateIsCheckedWhenBuilt() {
        Map<QuotaDimension, PacerState.DimensionState> ok = Map.of(QuotaDimension.TOKENS,
                new PacerState.DimensionState(600_000, PacerState.NEVER, List.of(new PacerState.WindowCharge(50_000, 10))));
        assertThat(new PacerState(60_000, 1, ok, 0.9, PacerState.NEVER, 59_000, 1_000, Map.of()).dimensions())
                .isEqualTo(ok);

        assertThatThrownBy(() -> new PacerState(120_000, 1, ok, 0.9, PacerState.NEVER, PacerState.NEVER,
                PacerState.NEVER, Map.of())).hasMessageContaining("not in the 60 s before the capture");
        assertThatThrownBy(() -> new PacerState(60_000, 1, ok, 1.5, PacerState.NEVER, PacerState.NEVER,
                PacerState.NEVER, Map.of())).hasMessageContaining("target");
        assertThatThrownBy(() -> new PacerState(60_000, 1, ok, 0.9, PacerState.NEVER, 59_000, PacerState.NEVER,
                Map.of())).hasMessageContaining("set together");
        assertThatThrownBy(() -> new PacerState(60_000, 1, ok, 0.9, 61_000, PacerState.NEVER, PacerState.NEVER,
                Map.of())).hasMessageContaining("lastThrottleAtMillis");
        assertThatThrownBy(() -> new PacerState(60_000, 1, Map.of(), 0.9, PacerState.NEVER, PacerState.NEVER,
                PacerState.NEVER, Map.of())).hasMessageContaining("dimension");
        assertThatThrownBy(() -> new PacerState.DimensionState(600_000, PacerState.NEVER, List.of(
                new PacerState.WindowCharge(2, 1), new PacerState.WindowCharge(1, 1))))
                .hasMessageContaining("oldest first");
        List<PacerState.WindowCharge> tooMany = new ArrayList<>();
        for (int i = 0; i <= PacerState.MAX_HANDOFF_CHARGES; i++) {
            tooMany.add(new PacerState.WindowCharge(i, 1));
        }
        assertThatThrownBy(() -> new PacerState.DimensionState(600_000, PacerState.NEVER, tooMany))
                .hasMessageContaining("at most");
        assertThatThrownBy(() -> new PacerState.WindowCharge(1, 0)).hasMessageContaining("positive");
    }

    private static void admitAt(Pacer pacer, long tokens, long at) {
        Decision decision = pacer.decide(List.of(bulk("at" + at, tokens)), at);
        assertThat(decision).isInstanceOf(Decision.Admit.class);
        pacer.settle(((Decision.Admit) decision).admission(), TokenUsage.of(tokens, 0), at);
    }

    private static Candidate bulk(String id, long tokens) {
        return new Candidate(id, Lane.BULK, "t", TokenUsage.of(tokens, 0), 0, Long.MAX_VALUE);
    }

    private static Candidate answering(String id, long maxTokens) {
        return new Candidate(id, Lane.BULK, "t", TokenUsage.of(100, maxTokens), 0, Long.MAX_VALUE);
    }

    private static Candidate request(String tenant, long tokens) {
        return new Candidate(tenant + tokens, Lane.BULK, tenant, TokenUsage.of(tokens, 0), 0, Long.MAX_VALUE);
    }
}
