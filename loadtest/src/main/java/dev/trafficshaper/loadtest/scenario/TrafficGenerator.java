package dev.trafficshaper.loadtest.scenario;

import dev.trafficshaper.loadtest.sim.RunMetrics;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.pacing.Lane;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Turns a scenario into its list of requests, deterministically from a seed. Load multiples are
 * relative to the quota: at 1.0 the expected quota-charged tokens of the arrivals equal the quota
 * of the primary dimension per minute.
 */
public final class TrafficGenerator {

    private TrafficGenerator() {
    }

    public static List<SimRequest> generate(Scenario scenario, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<SimRequest> requests = new ArrayList<>();
        double requestsPerMinuteAtQuota = requestsPerMinuteAtQuota(scenario);
        long phaseStart = 0;
        for (Phase phase : scenario.phases()) {
            long duration = phase.durationSeconds() * 1_000;
            List<Long> arrivals = switch (phase.pattern()) {
                case "burst" -> burst(phase, duration, random);
                case "idle" -> List.of();
                default -> poisson(phase, duration, requestsPerMinuteAtQuota, random);
            };
            for (long offset : arrivals) {
                requests.add(request(scenario, requests.size(), phaseStart + offset, random));
            }
            phaseStart += duration;
        }
        return requests;
    }

    static double requestsPerMinuteAtQuota(Scenario scenario) {
        Quota quota = scenario.quota();
        double input = scenario.inputTokens().expectedValue();
        double output = Math.min(scenario.maxTokens(), scenario.outputTokens().expectedValue());
        return switch (RunMetrics.primaryDimension(quota)) {
            case TOKENS -> quota.tpm() / (input + output * quota.outputBurndown());
            case OUTPUT_TOKENS -> quota.outputTpm() / output;
            default -> quota.inputTpm() / input;
        };
    }

    private static List<Long> burst(Phase phase, long duration, SplittableRandom random) {
        List<Long> arrivals = new ArrayList<>();
        for (int i = 0; i < phase.requests(); i++) {
            arrivals.add(random.nextLong(duration));
        }
        arrivals.sort(null);
        return arrivals;
    }

    /** Non-homogeneous Poisson arrivals by thinning against the phase's peak rate. */
    private static List<Long> poisson(Phase phase, long duration, double perMinuteAtQuota, SplittableRandom random) {
        List<Long> arrivals = new ArrayList<>();
        double peakPerMilli = phase.peakMultiple() * perMinuteAtQuota / 60_000.0;
        if (peakPerMilli <= 0) {
            return arrivals;
        }
        double t = 0;
        while (true) {
            t += -Math.log(1.0 - random.nextDouble()) / peakPerMilli;
            if (t >= duration) {
                return arrivals;
            }
            double accept = phase.multipleAt(t / 1_000.0) / phase.peakMultiple();
            if (random.nextDouble() < accept) {
                arrivals.add((long) t);
            }
        }
    }

    /** Equal shares draw an integer (as before tenant weights existed), weighted ones a share. */
    private static int tenant(Scenario scenario, SplittableRandom random) {
        List<Double> weights = scenario.tenantWeights();
        if (weights == null) {
            return random.nextInt(scenario.tenants());
        }
        double total = weights.stream().mapToDouble(Double::doubleValue).sum();
        double pick = random.nextDouble() * total;
        for (int t = 0; t < weights.size() - 1; t++) {
            pick -= weights.get(t);
            if (pick < 0) {
                return t;
            }
        }
        return weights.size() - 1;
    }

    private static SimRequest request(Scenario scenario, int index, long arrival, SplittableRandom random) {
        long input = Math.max(1, scenario.inputTokens().sample(random));
        long output = Math.max(1, Math.min(scenario.maxTokens(), scenario.outputTokens().sample(random)));
        double error = scenario.estimationError() * (2 * random.nextDouble() - 1);
        long estimate = Math.max(1, Math.round(input * (1 + error)));
        Lane lane = random.nextDouble() < scenario.interactiveShare() ? Lane.INTERACTIVE : Lane.BULK;
        String tenant = "tenant-" + tenant(scenario, random);
        return new SimRequest(index, "req-" + index, arrival, lane, tenant, input, estimate, scenario.maxTokens(),
                output, index % scenario.clients());
    }
}
