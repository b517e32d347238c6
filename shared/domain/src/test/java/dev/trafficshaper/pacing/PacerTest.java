package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PacerTest {

    /** 600k TPM at target 1.0 regenerates 10 tokens per millisecond. */
    private static final Quota TEN_PER_MS = Quota.tokensPerMinute(600_000);
    private static final PacerSettings STEADY = PacerSettings.builder()
            .targetUtilization(1.0).minimumTarget(0.5).slowStartMillis(0).headroom(false).build();

    private int sequence;

    private Candidate request(Lane lane, String tenant, long input, long maxTokens, long enqueuedAt) {
        return new Candidate("r" + sequence++, lane, tenant, TokenUsage.of(input, maxTokens), enqueuedAt, Long.MAX_VALUE);
    }

    private Candidate bulk(long tokens) {
        return request(Lane.BULK, "t", tokens, 0, 0);
    }

    /** Drains a fixed queue and returns "id@millis" for each admission, sending each at once. */
    private static List<String> drain(Pacer pacer, List<Candidate> queue, long from) {
        List<String> trace = new ArrayList<>();
        List<Candidate> waiting = new ArrayList<>(queue);
        long now = from;
        while (!waiting.isEmpty()) {
            Decision decision = pacer.decide(List.of(waiting.get(0)), now);
            if (decision instanceof Decision.Admit admit) {
                trace.add(admit.candidate().requestId() + "@" + now);
                waiting.remove(0);
            } else if (decision instanceof Decision.WaitUntil wait) {
                assertThat(wait.atMillis()).isGreaterThan(now);
                now = wait.atMillis();
            }
        }
        return trace;
    }

    @Test
    void spacesEqualRequestsEvenlyAtTheTargetRate() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        List<Candidate> queue = List.of(bulk(1_000), bulk(1_000), bulk(1_000), bulk(1_000));

        assertThat(drain(pacer, queue, 0)).containsExactly("r0@0", "r1@100", "r2@200", "r3@300");
    }

    @Test
    void spacingFollowsEachRequestsSize() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        List<Candidate> queue = List.of(bulk(5_000), bulk(1_000), bulk(2_000), bulk(1_000));

        assertThat(drain(pacer, queue, 0)).containsExactly("r0@0", "r1@500", "r2@600", "r3@800");
    }

    @Test
    void targetBelowOneStretchesTheSpacing() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY.toBuilder().targetUtilization(0.5).build());

        assertThat(drain(pacer, List.of(bulk(1_000), bulk(1_000), bulk(1_000)), 0))
                .containsExactly("r0@0", "r1@200", "r2@400");
    }

    @Test
    void reservesMaxTokensTimesBurndownAndRefundsOnSettlement() {
        Quota claude = Quota.tokensPerMinute(600_000).withOutputBurndown(5);
        Pacer pacer = Pacer.create(claude, STEADY);
        Candidate first = request(Lane.BULK, "t", 1_000, 1_000, 0);

        Admission admission = ((Decision.Admit) pacer.decide(List.of(first), 0)).admission();
        assertThat(admission.reservation().tokens()).isEqualTo(6_000);
        assertThat(pacer.snapshot(0).nextSlotMillis()).isEqualTo(600);

        pacer.settle(admission, TokenUsage.of(1_000, 200), 50);
        assertThat(pacer.snapshot(50).windowSums()).containsEntry(QuotaDimension.TOKENS, 2_000L);
        assertThat(pacer.snapshot(50).nextSlotMillis()).isEqualTo(200);
    }

    @Test
    void cacheReadsAreReservedButNotCharged() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        Candidate cached = new Candidate("c", Lane.BULK, "t", new TokenUsage(100, 100, 800, 0), 0, Long.MAX_VALUE);

        Admission admission = ((Decision.Admit) pacer.decide(List.of(cached), 0)).admission();
        assertThat(admission.reservation().tokens()).isEqualTo(1_000);
        pacer.settle(admission, new TokenUsage(100, 100, 800, 0), 10);

        assertThat(pacer.snapshot(10).windowSums()).containsEntry(QuotaDimension.TOKENS, 200L);
    }

    @Test
    void refundsCannotBuildUpABurstBeyondTheLatenessAllowance() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        Admission big = ((Decision.Admit) pacer.decide(List.of(bulk(50_000)), 0)).admission();
        pacer.settle(big, TokenUsage.of(0, 0), 10_000);

        // At 10 s the budget may hand out what regenerates in the 250 ms lateness allowance, no more.
        List<String> trace = drain(pacer, List.of(bulk(1_000), bulk(1_000), bulk(1_000), bulk(1_000)), 10_000);
        assertThat(trace).containsExactly("r1@10000", "r2@10000", "r3@10000", "r4@10050");
    }

    /**
     * Calls reserving 1,000 tokens that use 200, their settlements learnt in batches every 500 ms
     * (as a drainer polling status items learns them). The window lets through up to 3,000 of them
     * a minute; spaced at the reservation with each batch's refund clamped to the lateness allowance,
     * the pacer admitted about a third of that.
     */
    @Test
    void refundsLearntInBatchesAreNotLostToTheSpacing() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        List<Admission> outstanding = new ArrayList<>();
        int inSecondMinute = 0;
        long now = 0;
        long nextPoll = 500;
        while (now < 120_000) {
            Decision decision = pacer.decide(List.of(request(Lane.BULK, "t", 100, 900, 0)), now);
            if (decision instanceof Decision.Admit admit) {
                outstanding.add(admit.admission());
                if (now >= 60_000) {
                    inSecondMinute++;
                }
                continue;
            }
            long wake = ((Decision.WaitUntil) decision).atMillis();
            if (wake >= nextPoll) {
                now = nextPoll;
                for (Admission admission : outstanding) {
                    pacer.settle(admission, TokenUsage.of(100, 100), now);
                }
                outstanding.clear();
                nextPoll += 500;
            } else {
                now = wake;
            }
        }

        assertThat(inSecondMinute).isBetween(2_850, 3_000);
        assertThat(pacer.snapshot(now).windowSums().get(QuotaDimension.TOKENS)).isLessThanOrEqualTo(600_000L);
    }

    @Test
    void neverSpendsMoreThanTheTargetInSixtySecondsEvenWhenSpacingWouldAllowIt() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        // One request the size of the whole minute, settled at full size: the next must wait 60 s.
        Admission whole = ((Decision.Admit) pacer.decide(List.of(bulk(600_000)), 0)).admission();
        pacer.settle(whole, TokenUsage.of(600_000, 0), 1_000);

        assertThat(pacer.decide(List.of(bulk(1)), 59_999)).isEqualTo(new Decision.WaitUntil(60_000));
        assertThat(pacer.decide(List.of(bulk(1)), 60_000)).isInstanceOf(Decision.Admit.class);
    }

    @Test
    void requestsPerMinuteBindWhenTheyAreTheTighterQuota() {
        Quota rpmBound = Quota.tokensPerMinute(600_000).withRpm(600);
        Pacer pacer = Pacer.create(rpmBound, STEADY);

        assertThat(drain(pacer, List.of(bulk(10), bulk(10), bulk(10)), 0)).containsExactly("r0@0", "r1@100", "r2@200");
    }

    @Test
    void separateOutputQuotaBindsOnMaxTokens() {
        Quota split = Quota.tokensPerMinute(6_000_000).withSeparateInputOutput(6_000_000, 60_000);
        Pacer pacer = Pacer.create(split, STEADY);
        List<Candidate> queue = List.of(request(Lane.BULK, "t", 100, 1_000, 0), request(Lane.BULK, "t", 100, 1_000, 0));

        assertThat(drain(pacer, queue, 0)).containsExactly("r0@0", "r1@1000");
    }

    @Test
    void startsSlowlyAfterAnIdlePeriod() {
        PacerSettings ramp = STEADY.toBuilder().slowStartMillis(1_000).slowStartFloor(0.5).idleMillis(60_000).build();
        Pacer pacer = Pacer.create(TEN_PER_MS, ramp);

        List<String> trace = drain(pacer, List.of(bulk(1_000), bulk(1_000), bulk(1_000), bulk(1_000),
                bulk(1_000), bulk(1_000), bulk(1_000), bulk(1_000)), 0);

        // Intervals shrink from 200 ms (half rate) towards 100 ms as the ramp completes.
        assertThat(trace).containsExactly("r0@0", "r1@200", "r2@367", "r3@513", "r4@646", "r5@767",
                "r6@880", "r7@987");
    }

    @Test
    void unexpectedThrottleLowersTheTargetOncePerEpisodeAndRecoversLinearly() {
        PacerSettings settings = STEADY.toBuilder().throttleBackoff(0.8).recoveryPerMinute(0.1).build();
        Pacer pacer = Pacer.create(TEN_PER_MS, settings);
        Admission a = ((Decision.Admit) pacer.decide(List.of(bulk(1_000)), 0)).admission();
        Admission b = ((Decision.Admit) pacer.decide(List.of(bulk(1_000)), 100)).admission();

        pacer.throttled(a, 1_000);
        assertThat(pacer.snapshot(1_000).target()).isEqualTo(0.8);
        pacer.throttled(b, 1_500);

        assertThat(pacer.snapshot(1_500).target()).isLessThan(0.81);
        assertThat(pacer.snapshot(1_500).throttles()).isEqualTo(2);
        assertThat(pacer.snapshot(61_000).target()).isCloseTo(0.9, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(pacer.snapshot(200_000).target()).isEqualTo(1.0);
        assertThat(pacer.snapshot(1_500).windowSums()).containsEntry(QuotaDimension.TOKENS, 0L);
    }

    @Test
    void bothLanesBackloggedSplitThirtySeventy() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        List<String> lanes = drainLanes(pacer, 100, 100, 10_000);

        long interactive = lanes.stream().limit(100).filter("I"::equals).count();
        assertThat(interactive).isEqualTo(30);
    }

    @Test
    void bulkUsesTheWholeBudgetWhenInteractiveIsIdle() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        List<String> lanes = drainLanes(pacer, 0, 50, 10_000);

        assertThat(lanes).hasSize(50).containsOnly("B");
    }

    @Test
    void interactiveWithinItsReserveIsNotDelayedByABulkBacklog() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        List<Candidate> bulkQueue = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            bulkQueue.add(request(Lane.BULK, "b", 1_000, 0, 0));
        }
        long now = 0;
        int admittedBulk = 0;
        Long interactiveAdmittedAt = null;
        Candidate interactive = null;
        while (interactiveAdmittedAt == null) {
            if (now >= 5_000 && interactive == null) {
                interactive = request(Lane.INTERACTIVE, "i", 1_000, 0, now);
            }
            List<Candidate> heads = new ArrayList<>();
            heads.add(bulkQueue.get(admittedBulk));
            if (interactive != null) {
                heads.add(interactive);
            }
            Decision decision = pacer.decide(heads, now);
            if (decision instanceof Decision.Admit admit) {
                if (admit.candidate() == interactive) {
                    interactiveAdmittedAt = now;
                } else {
                    admittedBulk++;
                }
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        assertThat(interactiveAdmittedAt).isBetween(5_000L, 5_100L);
    }

    @Test
    void tenantCapBoundsOneTenantWhileOthersProceed() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY.toBuilder().tenantCap("greedy", 0.25).build());
        List<Candidate> greedy = new ArrayList<>();
        List<Candidate> polite = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            greedy.add(request(Lane.BULK, "greedy", 1_000, 0, 0));
            polite.add(request(Lane.BULK, "polite", 1_000, 0, 0));
        }
        long now = 0;
        int g = 0;
        int p = 0;
        while (now < 10_000) {
            Decision decision = pacer.decide(List.of(greedy.get(g), polite.get(p)), now);
            if (decision instanceof Decision.Admit admit) {
                if (admit.candidate().tenant().equals("greedy")) {
                    g++;
                } else {
                    p++;
                }
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        assertThat(g + p).isBetween(100, 103);
        assertThat(g).isBetween(24, 27);
    }

    @Test
    void tenantsInOneLaneShareEquallyWithoutCaps() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        int a = 0;
        int b = 0;
        long now = 0;
        while (a + b < 100) {
            Decision decision = pacer.decide(List.of(request(Lane.BULK, "a", 1_000, 0, 0),
                    request(Lane.BULK, "b", 1_000, 0, now)), now);
            if (decision instanceof Decision.Admit admit) {
                if (admit.candidate().tenant().equals("a")) {
                    a++;
                } else {
                    b++;
                }
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        assertThat(a).isEqualTo(50);
    }

    @Test
    void anAdmissionIsReportedExactlyOnce() {
        Pacer pacer = Pacer.create(TEN_PER_MS, STEADY);
        Admission admission = ((Decision.Admit) pacer.decide(List.of(bulk(10)), 0)).admission();
        pacer.settle(admission, TokenUsage.of(10, 0), 5);

        assertThatThrownBy(() -> pacer.release(admission, 6)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void noCandidatesMeansIdle() {
        assertThat(Pacer.create(TEN_PER_MS, STEADY).decide(List.of(), 0)).isInstanceOf(Decision.Idle.class);
    }

    /** Both lanes always have a head; returns the lane letter of each admission in order. */
    private List<String> drainLanes(Pacer pacer, int interactiveCount, int bulkCount, long until) {
        List<String> order = new ArrayList<>();
        int i = 0;
        int b = 0;
        long now = 0;
        while ((i < interactiveCount || b < bulkCount) && now < until) {
            List<Candidate> heads = new ArrayList<>();
            if (i < interactiveCount) {
                heads.add(request(Lane.INTERACTIVE, "t", 1_000, 0, 0));
            }
            if (b < bulkCount) {
                heads.add(request(Lane.BULK, "t", 1_000, 0, 0));
            }
            Decision decision = pacer.decide(heads, now);
            if (decision instanceof Decision.Admit admit) {
                if (admit.candidate().lane() == Lane.INTERACTIVE) {
                    i++;
                    order.add("I");
                } else {
                    b++;
                    order.add("B");
                }
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        return order;
    }
}
