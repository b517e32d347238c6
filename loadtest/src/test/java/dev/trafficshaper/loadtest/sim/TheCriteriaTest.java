package dev.trafficshaper.loadtest.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.strategy.Strategies;
import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.QuotaModel;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The README's "The criteria, at seed 42", held for every built-in scenario under every meter with
 * strict leniency and the production defaults (the sweep of {@code simulate --all --strict}):
 * <ul>
 *   <li>the shaper drains within 1.10× the oracle, but for the one run the README explains, which
 *       is pinned both ways (no worse than measured, and still above the bar, so that the day it
 *       gets there this test asks for the README to say so);</li>
 *   <li>it serves every request, but for those the scenario's timeouts end (a call that may have
 *       run is never sent again): at most 1.5 times the timeouts expected on its calls;</li>
 *   <li>its own throttles stay within 1% of the requests, and its calls within 1.01 per request,
 *       plus at most 1.5 times the 5xx answers the scenario injects into them;</li>
 *   <li>it drains no slower than {@code sdk-adaptive} wherever that kept ≥ 99%, but for ties of
 *       at most {@value #TIE} of the drain (the README's five: a queued call waits for its spacing
 *       and the drainer where the SDK sends at once); where the SDK beat the oracle by losing
 *       requests, the oracle's drain is the pace to keep.</li>
 * </ul>
 */
class TheCriteriaTest {

    private static final double WITHIN_ORACLE = 1.10;
    private static final double TIE = 0.005;
    private static final double FAULT_SLACK = 1.5;

    /**
     * The runs above {@link #WITHIN_ORACLE} and the most each was measured to need. Fixed-window
     * long generations: 1.106× at seed 42, held there by headroom's 1% budget (README, "The
     * criteria, at seed 42").
     */
    private static final Map<String, Double> ABOVE_THE_BAR = Map.of(
            key(QuotaModel.FIXED_WINDOW, "long-generations-split-tpm"), 1.11);

    @ParameterizedTest
    @EnumSource(QuotaModel.class)
    void everyRunMeetsTheIssuesCriteriaOrIsTheExplainedException(QuotaModel model) {
        for (Map.Entry<String, List<StrategyResult>> sweep : SeedSweep.under(model).entrySet()) {
            String name = sweep.getKey();
            List<StrategyResult> results = sweep.getValue();
            StrategyResult shaper = SeedSweep.of(results, "shaper");
            StrategyResult oracle = SeedSweep.of(results, Strategies.ORACLE);
            StrategyResult sdk = SeedSweep.of(results, "sdk-adaptive");
            Faults faults = SeedSweep.strict(name, model).faults();
            String run = name + " under " + model;

            Double measured = ABOVE_THE_BAR.get(key(model, name));
            double vsOracle = shaper.drainSeconds() / oracle.drainSeconds();
            if (measured == null) {
                assertThat(vsOracle).as("%s: drain ÷ the oracle's", run).isLessThanOrEqualTo(WITHIN_ORACLE);
            } else {
                assertThat(vsOracle).as("%s: drain ÷ the oracle's, the explained exception", run)
                        .isLessThanOrEqualTo(measured)
                        .as("%s is within %.2f× now: drop it from the exceptions and the README", run, WITHIN_ORACLE)
                        .isGreaterThan(WITHIN_ORACLE);
            }

            long timeouts = (long) Math.ceil(FAULT_SLACK * faults.timeoutRate() * shaper.apiCalls());
            assertThat(shaper.failed()).as("%s: requests not served", run).isLessThanOrEqualTo(timeouts);

            long serverErrors = (long) Math.ceil(FAULT_SLACK * faults.serverErrorRate() * shaper.apiCalls());
            assertThat(shaper.throttled()).as("%s: throttles", run).isLessThanOrEqualTo(shaper.requests() / 100);
            assertThat(shaper.apiCalls()).as("%s: calls", run)
                    .isLessThanOrEqualTo(shaper.requests() + shaper.requests() / 100 + serverErrors);

            if (sdk.succeeded() >= 0.99 * sdk.requests()) {
                double pace = Math.max(sdk.drainSeconds(), oracle.drainSeconds());
                assertThat(shaper.drainSeconds()).as("%s: drain against sdk-adaptive's %.1f s", run, sdk.drainSeconds())
                        .isLessThanOrEqualTo(pace * (1 + TIE));
            }
        }
    }

    private static String key(QuotaModel model, String scenario) {
        return model + "/" + scenario;
    }
}
