package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;
import java.util.ArrayDeque;

/**
 * Each client instance uses the SDK's adaptive retry mode: its own {@link CubicRateLimiter} in front
 * of its calls (requests wait in the client for a send token) and the standard retry policy.
 */
final class SdkAdaptive implements Strategy {

    private final SimRun run;
    private final Client[] clients;

    SdkAdaptive(SimRun run) {
        this.run = run;
        this.clients = new Client[run.scenario().clients()];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = new Client(new CubicRateLimiter(run.now()));
        }
    }

    @Override
    public void arrive(SimRequest request) {
        clients[request.client()].enqueue(new Attempt(request, 1));
    }

    private record Attempt(SimRequest request, int number) {
    }

    private final class Client {
        private final CubicRateLimiter limiter;
        private final ArrayDeque<Attempt> waiting = new ArrayDeque<>();
        private final Wakeup wakeup = new Wakeup(run.loop(), this::pump);

        Client(CubicRateLimiter limiter) {
            this.limiter = limiter;
        }

        void enqueue(Attempt attempt) {
            run.metrics().startedWaiting(run.now());
            waiting.addLast(attempt);
            pump();
        }

        private void pump() {
            while (!waiting.isEmpty()) {
                long at = limiter.tryAcquire(run.now());
                if (at > run.now()) {
                    wakeup.at(at);
                    return;
                }
                Attempt attempt = waiting.pollFirst();
                run.sendFromWait(attempt.request(), outcome -> completed(attempt, outcome));
            }
        }

        private void completed(Attempt attempt, CallOutcome outcome) {
            limiter.onResponse(outcome == CallOutcome.THROTTLED, run.now());
            if (StandardRetries.retryable(outcome, attempt.number())) {
                long delay = StandardRetries.delayMillis(outcome, attempt.number(), run.random());
                Attempt next = new Attempt(attempt.request(), attempt.number() + 1);
                run.metrics().startedWaiting(run.now());
                run.loop().after(delay, () -> {
                    run.metrics().stoppedWaiting(run.now());
                    enqueue(next);
                });
                return;
            }
            run.finish(attempt.request(), outcome == CallOutcome.SUCCEEDED);
        }
    }
}
