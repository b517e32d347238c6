package dev.trafficshaper.loadtest.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.scenario.Phase;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.TokenDistribution;
import dev.trafficshaper.loadtest.strategy.Strategies;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.simulator.provider.ShortHorizon;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class OracleTest {

    /** How much sooner than the oracle a strategy may drain by sending in another order. */
    private static final double ORDER_SLACK = 0.001;

    /**
     * Every built-in scenario under every meter with strict leniency: the oracle is never throttled,
     * serves every request, and no strategy that also served every request drained sooner by more
     * than {@value #ORDER_SLACK} of its time. The oracle is the fastest in-order sender, not an
     * optimal scheduler: sending each call the moment it fits can leave a later one waiting longer,
     * and which generation ends last depends on the order (token-bucket {@code extreme-spike}, seed
     * 42: the shaper 249.8 s, the oracle 249.9 s).
     */
    @ParameterizedTest
    @EnumSource(QuotaModel.class)
    void theOracleIsNeverThrottledAndNoStrategyThatServesEveryRequestDrainsSooner(QuotaModel model) {
        for (Map.Entry<String, List<StrategyResult>> sweep : SeedSweep.under(model).entrySet()) {
            List<StrategyResult> results = sweep.getValue();
            StrategyResult oracle = SeedSweep.of(results, Strategies.ORACLE);

            String run = sweep.getKey() + " under " + model;
            assertThat(oracle.throttled()).as(run).isZero();
            assertThat(oracle.succeeded()).as(run).isEqualTo(oracle.requests());
            for (StrategyResult other : results) {
                if (other.succeeded() == other.requests()) {
                    assertThat(oracle.drainSeconds()).as("%s: oracle vs %s", run, other.strategy())
                            .isLessThanOrEqualTo(other.drainSeconds() * (1 + ORDER_SLACK));
                }
            }
        }
    }

    @Test
    void aFullBucketIsSpentAtOnceAtTheStartOfABurst() {
        Scenario burst = oneMinuteBurst(QuotaModel.TOKEN_BUCKET);

        StrategyResult oracle = Simulation.run(burst, List.of(Strategies.ORACLE), 1).get(0);

        // 120 requests of 1,000 tokens against 60k per minute: 60 at once, then one a second.
        assertThat(oracle.throttled()).isZero();
        assertThat(oracle.waitP50Ms()).isBetween(0L, 1_000L);
        assertThat(oracle.drainSeconds()).isBetween(60.0, 62.0);
    }

    @Test
    void underAShortHorizonLimitTheOracleSpreadsTheBurstAndIsStillNeverThrottled() {
        Scenario burst = oneMinuteBurst(QuotaModel.TOKEN_BUCKET).withShortHorizon(new ShortHorizon(1_000, 0.05));

        StrategyResult oracle = Simulation.run(burst, List.of(Strategies.ORACLE), 1).get(0);
        StrategyResult direct = Simulation.run(burst, List.of("direct-no-retry"), 1).get(0);

        // Three 1,000-token calls per second at most: the first 60 take 20 s instead of an instant.
        assertThat(oracle.throttled()).isZero();
        assertThat(oracle.waitP50Ms()).isGreaterThan(15_000);
        assertThat(direct.throttled()).as("the bunched direct calls meet the limit").isGreaterThan(100);
    }

    @Test
    void whereRequestsPerMinuteBindTheirUtilizationIsReported() {
        Scenario rpm = SeedSweep.strict("rpm-bound-small", QuotaModel.SLIDING_WINDOW);

        StrategyResult oracle = Simulation.run(rpm, List.of(Strategies.ORACLE), 42).get(0);

        assertThat(oracle.dimensionUtilization()).containsOnlyKeys("rpm", "tpm");
        assertThat(oracle.dimensionUtilization().get("rpm")).isGreaterThan(0.95);
        assertThat(oracle.dimensionUtilization().get("tpm")).isLessThan(0.5);
        assertThat(oracle.utilization()).isEqualTo(oracle.dimensionUtilization().get("rpm"));
    }

    /** 120 requests of 1,000 tokens (no output) in the first 100 ms, against 60k tokens per minute. */
    private static Scenario oneMinuteBurst(QuotaModel model) {
        return new Scenario("burst", "two minutes' worth at once", Quota.tokensPerMinute(60_000), model.wireName(),
                Leniency.STRICT, null, null, null, List.of(Phase.burst(1, 120)), TokenDistribution.fixed(1_000),
                TokenDistribution.fixed(1), 1L, null, null, null, null, null, null, null, null, null, null, null);
    }
}
