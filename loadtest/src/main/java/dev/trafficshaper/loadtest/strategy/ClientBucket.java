package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.RunMetrics;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import java.util.ArrayDeque;

/**
 * The common do-it-yourself limiter: each client instance keeps a local token bucket sized to the
 * model's quota (one minute of it, refilling at the quota) and waits for tokens before each call.
 * The instances do not know about each other, so N of them together allow N times the quota. A
 * throttle is a lost request: the bucket is the client's only defence.
 */
final class ClientBucket implements Strategy {

    private final SimRun run;
    private final Bucket[] buckets;
    private final QuotaDimension dimension;

    ClientBucket(SimRun run) {
        this.run = run;
        Quota quota = run.scenario().quota();
        this.dimension = RunMetrics.primaryDimension(quota);
        this.buckets = new Bucket[run.scenario().clients()];
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new Bucket(quota.limit(dimension));
        }
    }

    @Override
    public void arrive(SimRequest request) {
        run.metrics().startedWaiting(run.now());
        buckets[request.client()].enqueue(request);
    }

    private final class Bucket {
        private final double capacity;
        private final double perMilli;
        private final ArrayDeque<SimRequest> waiting = new ArrayDeque<>();
        private double level;
        private long updatedAt;
        private final Wakeup wakeup = new Wakeup(run.loop(), this::pump);

        Bucket(long perMinute) {
            this.capacity = perMinute;
            this.perMilli = perMinute / 60_000.0;
            this.level = capacity;
            this.updatedAt = run.now();
        }

        void enqueue(SimRequest request) {
            waiting.addLast(request);
            pump();
        }

        private void pump() {
            level = Math.min(capacity, level + (run.now() - updatedAt) * perMilli);
            updatedAt = run.now();
            while (!waiting.isEmpty()) {
                SimRequest head = waiting.peekFirst();
                double cost = Math.min(capacity,
                        Charge.reservation(run.scenario().quota(), head.estimatedReservation()).amount(dimension));
                if (level < cost) {
                    long at = run.now() + (long) Math.ceil((cost - level) / perMilli);
                    wakeup.at(at);
                    return;
                }
                level -= cost;
                waiting.pollFirst();
                run.sendFromWait(head, outcome -> run.finish(head, outcome == CallOutcome.SUCCEEDED));
            }
        }
    }
}
