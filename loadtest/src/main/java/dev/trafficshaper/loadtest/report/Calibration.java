package dev.trafficshaper.loadtest.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.TrafficGenerator;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.Simulation;
import dev.trafficshaper.loadtest.sim.StrategyResult;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The provider-model knobs that best explain a run's direct arm, as a hint for the scenario file.
 *
 * <p>Why the direct arm: without retries, each request makes exactly one call, so its success
 * rate is the meter's answer to the offered burst and nothing else — the cleanest view of how
 * lenient the account's quota is. A search over the simulator's three knobs that are not public —
 * the quota model (token bucket, fixed or sliding 60 s window), the burst allowance and what a
 * throttled call costs the quota — simulates the same schedule with each setting and keeps the one
 * whose predicted success rate is nearest the measured one (throttles per request break ties, then
 * closeness to the scenario's current setting). The latency model is scaled by the ratio of the
 * measured to the modelled median duration of a successful call.
 *
 * <p>A direct arm that was never throttled says nothing about leniency (every setting predicts the
 * same), and the hint says so instead of inventing a fit.
 */
public final class Calibration {

    static final double[] BURST_ALLOWANCES = {1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.5, 8.0};
    static final double[] THROTTLED_CHARGE_FACTORS = {0.0, 0.5, 1.0, 2.0, 4.0};

    /**
     * @param fitted          whether the direct arm constrained the knobs; when false only {@code note} says why
     * @param latencyFactor   measured ÷ modelled median duration of a successful call (1 when unknown)
     * @param latency         the scenario's latency model scaled by that factor; null when within 5%
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Hint(boolean fitted, String note, String quotaModel, Double burstAllowance,
                       Double throttledChargeFactor, Double measuredSuccessRate, Double predictedSuccessRate,
                       Double currentPredictedSuccessRate, double latencyFactor, LatencyModel latency) {

        /** The lines to print under the report's table. */
        public String render() {
            StringBuilder out = new StringBuilder("calibration hint (from the direct arm):\n");
            if (!fitted) {
                out.append("  ").append(note).append('\n');
            } else {
                out.append(String.format(Locale.ROOT, "  quotaModel %s, burstAllowance %s, throttledChargeFactor %s"
                                + " predict %.1f%% success (measured %.1f%%; the scenario's setting predicts %.1f%%)%n",
                        quotaModel, trim(burstAllowance), trim(throttledChargeFactor), 100 * predictedSuccessRate,
                        100 * measuredSuccessRate, 100 * currentPredictedSuccessRate));
            }
            if (latency != null) {
                out.append(String.format(Locale.ROOT, "  calls took %.2f× the scenario's latency model: latency"
                                + " {timeToFirstTokenMillis %d, millisPerOutputToken %s}%n", latencyFactor,
                        latency.timeToFirstTokenMillis(), trim(latency.millisPerOutputToken())));
            }
            if (fitted) {
                out.append(String.format(Locale.ROOT, "  in the scenario: \"quotaModel\": \"%s\", \"leniency\":"
                                + " {\"burstAllowance\": %s, \"throttledChargeFactor\": %s}%s%n", quotaModel,
                        trim(burstAllowance), trim(throttledChargeFactor), latency == null ? ""
                                : String.format(Locale.ROOT, ", \"latency\": {\"timeToFirstTokenMillis\": %d,"
                                        + " \"millisPerOutputToken\": %s}", latency.timeToFirstTokenMillis(),
                                trim(latency.millisPerOutputToken()))));
            }
            return out.toString();
        }

        private static String trim(double value) {
            return value == Math.rint(value) ? Long.toString((long) value)
                    : String.format(Locale.ROOT, "%.3f", value).replaceAll("0+$", "");
        }
    }

    private Calibration() {
    }

    /**
     * @param scenario the scenario as run
     * @param direct   the direct arm's reconciled requests
     */
    public static Hint fit(Scenario scenario, long seed, List<ReconciledRequest> direct) {
        long finished = direct.stream().filter(r -> !r.lost()).count();
        if (finished == 0) {
            return new Hint(false, "the direct arm has no outcome to fit", null, null, null, null, null, null, 1, null);
        }
        double measured = (double) direct.stream().filter(ReconciledRequest::succeeded).count() / direct.size();
        double measuredThrottles = (double) direct.stream().mapToInt(ReconciledRequest::throttles).sum()
                / direct.size();
        double factor = latencyFactor(scenario, direct);
        LatencyModel latency = Math.abs(factor - 1) < 0.05 ? null : new LatencyModel(
                Math.round(scenario.latency().timeToFirstTokenMillis() * factor),
                Math.round(scenario.latency().millisPerOutputToken() * factor * 100) / 100.0,
                scenario.latency().jitter());
        List<SimRequest> requests = TrafficGenerator.generate(scenario, seed);
        StrategyResult current = Simulation.runOne(scenario, requests, ArmKind.DIRECT.simulatedStrategy(), seed);
        if (direct.stream().mapToInt(ReconciledRequest::throttles).sum() == 0) {
            return new Hint(false, "the direct arm was never throttled, so the run does not constrain the meter's"
                    + " leniency; play a burst above the quota to fit it", null, null, null, measured, null,
                    current.successRate(), factor, latency);
        }
        Candidate best = null;
        Leniency now = scenario.leniency();
        for (QuotaModel model : QuotaModel.values()) {
            for (double burst : BURST_ALLOWANCES) {
                for (double charge : THROTTLED_CHARGE_FACTORS) {
                    Scenario trial = scenario.withQuotaModel(model)
                            .withLeniency(new Leniency(burst, charge, now.refundAtSettlement()));
                    StrategyResult result = Simulation.runOne(trial, requests, ArmKind.DIRECT.simulatedStrategy(),
                            seed);
                    double throttlesPerRequest = result.requests() == 0 ? 0
                            : (double) result.throttled() / result.requests();
                    double distance = Math.abs(result.successRate() - measured)
                            + 0.1 * Math.abs(throttlesPerRequest - measuredThrottles);
                    double closeness = (model == scenario.meter() ? 0 : 1)
                            + Math.abs(Math.log(burst / now.burstAllowance()))
                            + Math.abs(charge - now.throttledChargeFactor()) / 10;
                    Candidate candidate = new Candidate(model, burst, charge, result.successRate(), distance, closeness);
                    if (best == null || candidate.betterThan(best)) {
                        best = candidate;
                    }
                }
            }
        }
        return new Hint(true, null, best.model().wireName(), best.burst(), best.charge(), measured,
                best.successRate(), current.successRate(), factor, latency);
    }

    private record Candidate(QuotaModel model, double burst, double charge, double successRate, double distance,
                             double closeness) {
        boolean betterThan(Candidate other) {
            if (Math.abs(distance - other.distance) > 1e-9) {
                return distance < other.distance;
            }
            return closeness < other.closeness;
        }
    }

    /**
     * Measured ÷ modelled median duration of the successful calls (from the start of the call that
     * succeeded to its answer), rounded to two places; 1 when nothing succeeded.
     */
    static double latencyFactor(Scenario scenario, List<ReconciledRequest> direct) {
        List<Long> measured = new ArrayList<>();
        List<Double> modelled = new ArrayList<>();
        LatencyModel model = scenario.latency();
        for (ReconciledRequest r : direct) {
            if (r.succeeded() && r.lastCallMillis() != null && r.finishedMillis() != null) {
                measured.add(r.finishedMillis() - r.lastCallMillis());
                modelled.add(model.timeToFirstTokenMillis() + model.millisPerOutputToken() * r.outputTokens());
            }
        }
        if (measured.isEmpty()) {
            return 1;
        }
        long[] m = measured.stream().mapToLong(Long::longValue).sorted().toArray();
        double[] p = modelled.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double medianModelled = p[p.length / 2];
        if (medianModelled <= 0) {
            return 1;
        }
        double factor = m[m.length / 2] / medianModelled;
        return Math.round(factor * 100) / 100.0;
    }
}
