package dev.trafficshaper.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.OutcomeStatus;
import dev.trafficshaper.loadtest.harness.RunSchedule;
import dev.trafficshaper.loadtest.harness.ScheduledRequest;
import dev.trafficshaper.loadtest.harness.TestRuns;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.TrafficGenerator;
import dev.trafficshaper.loadtest.sim.Simulation;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.simulator.provider.Leniency;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CalibrationTest {

    private final Scenario strict = TestRuns.burst(200);

    @Test
    void aDirectArmMeasuredOnALenientAccountIsExplainedByALenientMeter() {
        // what the account "really" does: the simulator with a burst allowance of 3
        Scenario account = strict.withLeniency(new Leniency(3.0, 0.0, false));
        StrategyResult truth = Simulation.runOne(account, TrafficGenerator.generate(account, 42),
                ArmKind.DIRECT.simulatedStrategy(), 42);
        List<ReconciledRequest> measured = directArm((int) truth.succeeded(), 1.0);

        Calibration.Hint hint = Calibration.fit(strict, 42, measured);

        assertThat(hint.fitted()).isTrue();
        assertThat(hint.predictedSuccessRate()).isCloseTo(truth.successRate(), org.assertj.core.data.Offset.offset(0.02));
        assertThat(hint.currentPredictedSuccessRate()).isLessThan(truth.successRate() - 0.1);
        assertThat(hint.burstAllowance()).isGreaterThan(1.0);
        assertThat(hint.render()).contains("\"leniency\": {\"burstAllowance\"");
    }

    @Test
    void callsSlowerThanTheLatencyModelScaleIt() {
        List<ReconciledRequest> measured = directArm(100, 2.0);

        Calibration.Hint hint = Calibration.fit(strict, 42, measured);

        assertThat(hint.latencyFactor()).isEqualTo(2.0);
        assertThat(hint.latency().timeToFirstTokenMillis()).isEqualTo(800);
        assertThat(hint.latency().millisPerOutputToken()).isEqualTo(10.0);
    }

    @Test
    void aDirectArmThatWasNeverThrottledConstrainsNothing() {
        Calibration.Hint hint = Calibration.fit(strict, 42, directArm(200, 1.0));

        assertThat(hint.fitted()).isFalse();
        assertThat(hint.render()).contains("never throttled");
    }

    /** The first {@code succeeded} requests succeed in {@code slowdown} × the modelled time, the rest are throttled. */
    private List<ReconciledRequest> directArm(int succeeded, double slowdown) {
        List<ReconciledRequest> requests = new ArrayList<>();
        for (ScheduledRequest r : RunSchedule.of(strict, 42).requests()) {
            long call = Math.round((400 + 5 * r.outputTokens()) * slowdown);
            boolean ok = r.index() < succeeded;
            requests.add(new ReconciledRequest("direct", "id" + r.index(), r.index(), r.arrivalMillis(),
                    r.arrivalMillis(), r.arrivalMillis(), r.arrivalMillis(), r.arrivalMillis() + (ok ? call : 100),
                    ok ? ReconciledRequest.SUCCEEDED : ReconciledRequest.FAILED,
                    ok ? OutcomeStatus.SUCCEEDED : OutcomeStatus.FAILED, ok ? null : "ThrottlingException",
                    ok ? 200 : 429, 1, ok ? 0 : 1, r.inputTokens(), ok ? r.outputTokens() : 0, 0, 0));
        }
        return requests;
    }
}
