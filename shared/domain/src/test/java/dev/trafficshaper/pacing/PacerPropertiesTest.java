package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

class PacerPropertiesTest {

    private static final Quota QUOTA = Quota.tokensPerMinute(1_000_000).withOutputBurndown(2);

    @Property(tries = 60)
    void withHeadroomOffNoSixtySecondWindowSpendsMoreThanTheTarget(
            @ForAll("workloads") List<PacedRun.Request> requests,
            @ForAll @DoubleRange(min = 0.5, max = 1.0) double target) {
        Pacer pacer = Pacer.create(QUOTA, strict(target));

        List<PacedRun.Admitted> admitted = PacedRun.run(pacer, requests);

        PacedRun.assertNoWindowAboveTarget(admitted, pacer, target);
    }

    @Property(tries = 500)
    void withHeadroomOffHandoffsNeverLetPredecessorAndSuccessorTogetherExceedTheTarget(
            @ForAll("workloads") List<PacedRun.Request> requests,
            @ForAll("quotas") Quota quota,
            @ForAll @DoubleRange(min = 0.5, max = 1.0) double target,
            @ForAll("handoffs") List<PacedRun.Handoff> handoffs) {
        Pacer pacer = Pacer.create(quota, strict(target));

        List<PacedRun.Admitted> admitted = PacedRun.run(pacer, requests, handoffs);

        assertThat(admitted).hasSameSizeAs(requests);
        PacedRun.assertNoWindowAboveTarget(admitted, pacer, target);
    }

    @Property(tries = 40)
    void everyRequestIsAdmittedWithinTheTimeTheBacklogNeeds(@ForAll("workloads") List<PacedRun.Request> requests) {
        Pacer pacer = Pacer.create(QUOTA, PacerSettings.defaults());

        List<PacedRun.Admitted> admitted = PacedRun.run(pacer, requests);

        assertThat(admitted).hasSameSizeAs(requests);
        double totalMinutes = 0;
        long lastArrival = 0;
        for (PacedRun.Request r : requests) {
            totalMinutes += pacer.normalizedCost(r.candidate().expected()) / pacer.settings().minimumTarget();
            lastArrival = Math.max(lastArrival, r.arrivalMillis());
        }
        long bound = lastArrival + Math.round(totalMinutes * 60_000) + 60_000;
        for (PacedRun.Admitted a : admitted) {
            assertThat(a.atMillis()).as("admission of %s", a.request().candidate().requestId()).isLessThanOrEqualTo(bound);
        }
    }

    @Property(tries = 60)
    void refundsNeverLeaveMoreThanTheLatenessAllowanceToSpendAtOnce(
            @ForAll("workloads") List<PacedRun.Request> requests,
            @ForAll @IntRange(min = 0, max = 200_000) int probeDelay) {
        Pacer pacer = Pacer.create(QUOTA, PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).headroom(false).build());
        List<PacedRun.Admitted> admitted = PacedRun.run(pacer, requests);
        long probeAt = admitted.get(admitted.size() - 1).atMillis() + probeDelay;

        long burst = 0;
        int i = 0;
        while (pacer.decide(List.of(probe(i)), probeAt) instanceof Decision.Admit) {
            burst += 100;
            i++;
        }
        long allowance = Math.round(QUOTA.tpm() / 60_000.0 * DimensionBudget.LATENESS_MICROS / 1_000.0);
        assertThat(burst).isLessThanOrEqualTo(allowance + 100);
        assertThat(pacer.snapshot(probeAt).windowSums().values()).allMatch(sum -> sum >= 0);
    }

    private static PacerSettings strict(double target) {
        return PacerSettings.builder().targetUtilization(target).minimumTarget(0.5).headroom(false).build();
    }

    private static Candidate probe(int i) {
        return new Candidate("probe" + i, Lane.BULK, "p", TokenUsage.of(100, 0), 0, Long.MAX_VALUE);
    }

    @Provide
    Arbitrary<Quota> quotas() {
        return Arbitraries.of(QUOTA, new Quota(1_000_000, 120, 800_000, 200_000, 2));
    }

    /** One to four handoffs while the workload is busy, each successor starting up to 3 s later. */
    @Provide
    Arbitrary<List<PacedRun.Handoff>> handoffs() {
        Arbitrary<PacedRun.Handoff> handoff = Combinators.combine(
                Arbitraries.longs().between(0, 150_000),
                Arbitraries.longs().between(0, 3_000).edgeCases(edges -> edges.add(0L)))
                .as(PacedRun.Handoff::new);
        return handoff.list().ofMinSize(1).ofMaxSize(4);
    }

    @Provide
    Arbitrary<List<PacedRun.Request>> workloads() {
        Arbitrary<PacedRun.Request> request = Combinators.combine(
                Arbitraries.longs().between(0, 120_000),
                Arbitraries.longs().between(50, 60_000),
                Arbitraries.longs().between(0, 4_000),
                Arbitraries.doubles().between(0, 1),
                Arbitraries.longs().between(0, 40_000),
                Arbitraries.of(Lane.values()),
                Arbitraries.of("a", "b", "c"))
                .as((arrival, input, maxTokens, outputShare, latency, lane, tenant) -> {
                    long output = Math.round(maxTokens * outputShare);
                    Candidate c = new Candidate("r", lane, tenant, TokenUsage.of(input, maxTokens), arrival,
                            Long.MAX_VALUE);
                    return new PacedRun.Request(c, arrival, TokenUsage.of(input, output), latency);
                });
        return request.list().ofMinSize(1).ofMaxSize(150).map(PacerPropertiesTest::numbered);
    }

    private static List<PacedRun.Request> numbered(List<PacedRun.Request> requests) {
        List<PacedRun.Request> out = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            PacedRun.Request r = requests.get(i);
            Candidate c = r.candidate();
            out.add(new PacedRun.Request(new Candidate("r" + i, c.lane(), c.tenant(), c.expected(),
                    c.enqueuedAtMillis(), c.deadlineAtMillis()), r.arrivalMillis(), r.actual(), r.latencyMillis()));
        }
        return out;
    }
}
