package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;

/** Every request straight to Bedrock, once; a throttle is a lost request. */
final class DirectNoRetry implements Strategy {

    private final SimRun run;

    DirectNoRetry(SimRun run) {
        this.run = run;
    }

    @Override
    public void arrive(SimRequest request) {
        run.send(request, outcome -> run.finish(request, outcome == CallOutcome.SUCCEEDED));
    }
}
