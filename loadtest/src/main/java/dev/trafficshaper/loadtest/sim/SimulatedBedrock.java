package dev.trafficshaper.loadtest.sim;

import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Bedrock in virtual time: each call is checked against the provider's quota meter at start,
 * answers after a sampled latency, and settles its reservation to actual usage when it ends.
 */
public final class SimulatedBedrock {

    /** A throttled call comes back quickly. */
    static final long THROTTLE_RESPONSE_MILLIS = 60;

    private final EventLoop loop;
    private final ProviderQuota quota;
    private final LatencyModel latency;
    private final Faults faults;
    private final SplittableRandom random;
    private final RunMetrics metrics;

    public SimulatedBedrock(EventLoop loop, ProviderQuota quota, LatencyModel latency, Faults faults,
            SplittableRandom random, RunMetrics metrics) {
        this.loop = loop;
        this.quota = quota;
        this.latency = latency;
        this.faults = faults;
        this.random = random;
        this.metrics = metrics;
    }

    public Quota quota() {
        return quota.quota();
    }

    /** One API call for the request, now; the callback receives the outcome when the caller sees it. */
    public void call(SimRequest request, boolean duringBacklog, Consumer<CallOutcome> callback) {
        long start = loop.now();
        metrics.calling();
        Quota q = quota.quota();
        ProviderQuota.Reservation reservation = quota.tryReserve(Charge.reservation(q, request.trueReservation()), start);
        if (reservation == null) {
            metrics.throttled();
            loop.after(THROTTLE_RESPONSE_MILLIS, () -> callback.accept(CallOutcome.THROTTLED));
            return;
        }
        double roll = random.nextDouble();
        long generation = latency.sample(request.outputTokens(), random);
        if (roll < faults.serverErrorRate()) {
            long failAfter = latency.timeToFirstTokenMillis();
            loop.after(failAfter, () -> {
                quota.settle(reservation, Charge.NONE, loop.now());
                callback.accept(CallOutcome.SERVER_ERROR);
            });
        } else if (roll < faults.serverErrorRate() + faults.timeoutRate()) {
            Charge actual = Charge.settlement(q, request.actualUsage());
            loop.after(Math.max(generation, faults.timeoutMillis()), () -> quota.settle(reservation, actual, loop.now()));
            loop.after(faults.timeoutMillis(), () -> callback.accept(CallOutcome.TIMED_OUT));
        } else {
            Charge actual = Charge.settlement(q, request.actualUsage());
            loop.after(generation, () -> {
                quota.settle(reservation, actual, loop.now());
                metrics.delivered(start, actual, duringBacklog);
                callback.accept(CallOutcome.SUCCEEDED);
            });
        }
    }
}
