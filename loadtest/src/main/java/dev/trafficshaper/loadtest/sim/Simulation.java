package dev.trafficshaper.loadtest.sim;

import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.TrafficGenerator;
import dev.trafficshaper.loadtest.strategy.Strategies;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Runs strategies against one scenario in virtual time. Every strategy meets the same requests
 * (generated from the seed) and a fresh provider; randomness inside a run (latency, faults, backoff
 * jitter) comes from generators derived from the seed and the strategy's position, so the same seed
 * gives the same results.
 */
public final class Simulation {

    private Simulation() {
    }

    public static List<StrategyResult> run(Scenario scenario, List<String> strategies, long seed) {
        List<SimRequest> requests = TrafficGenerator.generate(scenario, seed);
        List<StrategyResult> results = new ArrayList<>();
        for (String name : strategies) {
            results.add(runOne(scenario, requests, name, seed));
        }
        return results;
    }

    public static StrategyResult runOne(Scenario scenario, List<SimRequest> requests, String name, long seed) {
        EventLoop loop = new EventLoop();
        RunMetrics metrics = new RunMetrics(scenario.quota());
        ProviderQuota quota = ProviderQuota.create(scenario.quota(), scenario.meter(), scenario.leniency(),
                scenario.backgroundLoad(), scenario.shortHorizon(), seed);
        SplittableRandom base = new SplittableRandom(seed ^ 0x5DEECE66DL);
        SplittableRandom providerRandom = base.split();
        SplittableRandom strategyRandom = base.split();
        SimulatedBedrock bedrock = new SimulatedBedrock(loop, quota, scenario.latency(), scenario.faults(),
                providerRandom, metrics);
        SimRun run = new SimRun(scenario, loop, bedrock, metrics, strategyRandom);
        Strategy strategy = Strategies.create(name, run);
        for (SimRequest request : requests) {
            loop.schedule(request.arrivalMillis(), () -> {
                metrics.arrived(request);
                strategy.arrive(request);
            });
        }
        loop.run();
        return metrics.result(name, strategy.drainerActivity());
    }
}
