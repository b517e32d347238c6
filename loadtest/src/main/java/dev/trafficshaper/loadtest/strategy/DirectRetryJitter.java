package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;

/**
 * The industry-standard retry loop of the seed experiment: up to 4 attempts, retrying only on 429,
 * with full-jitter backoff {@code uniform(0, min(30 s, 1 s × 2^attempt))}: 1 s, 2 s, 4 s.
 */
final class DirectRetryJitter implements Strategy {

    static final int MAX_ATTEMPTS = 4;

    private final SimRun run;

    DirectRetryJitter(SimRun run) {
        this.run = run;
    }

    @Override
    public void arrive(SimRequest request) {
        run.send(request, outcome -> handle(request, 1, outcome));
    }

    private void handle(SimRequest request, int attempt, CallOutcome outcome) {
        if (outcome == CallOutcome.THROTTLED && attempt < MAX_ATTEMPTS) {
            long ceiling = Math.min(30_000, 1_000L << (attempt - 1));
            long delay = (long) (run.random().nextDouble() * ceiling);
            run.waitUntil(run.now() + delay,
                    () -> run.sendFromWait(request, next -> handle(request, attempt + 1, next)));
            return;
        }
        run.finish(request, outcome == CallOutcome.SUCCEEDED);
    }
}
