package dev.trafficshaper.loadtest.sim;

import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Bedrock in virtual time: each call is checked against the provider's quota meter at start,
 * answers after a sampled latency, and settles its reservation to actual usage when it ends.
 *
 * <p>Latency and faults are drawn per request and attempt (the k-th call Bedrock accepts for a
 * request meets the same generation time and the same fault in every strategy's run), so strategies differ only by
 * when they send, not by the luck of the draw.
 */
public final class SimulatedBedrock {

    /** A throttled call comes back quickly. */
    static final long THROTTLE_RESPONSE_MILLIS = 60;

    private final EventLoop loop;
    private final ProviderQuota quota;
    private final LatencyModel latency;
    private final Faults faults;
    private final long seed;
    private final RunMetrics metrics;
    private int[] attempts = new int[0];
    private Runnable settlementListener = () -> { };

    public SimulatedBedrock(EventLoop loop, ProviderQuota quota, LatencyModel latency, Faults faults,
            SplittableRandom random, RunMetrics metrics) {
        this.loop = loop;
        this.quota = quota;
        this.latency = latency;
        this.faults = faults;
        this.seed = random.nextLong();
        this.metrics = metrics;
    }

    /** Called after every settlement (a refund may let a waiting request fit). */
    public void onSettlement(Runnable listener) {
        this.settlementListener = listener;
    }

    /** The oracle's view: when the provider's meter would accept this request's reservation. */
    public long earliestAdmission(SimRequest request, long nowMillis) {
        return quota.earliestAdmission(Charge.reservation(quota.quota(), request.trueReservation()), nowMillis);
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
        SplittableRandom random = draws(request);
        double roll = random.nextDouble();
        long generation = latency.sample(request.outputTokens(), random);
        if (roll < faults.serverErrorRate()) {
            long failAfter = latency.timeToFirstTokenMillis();
            loop.after(failAfter, () -> {
                settle(reservation, Charge.NONE);
                callback.accept(CallOutcome.SERVER_ERROR);
            });
        } else if (roll < faults.serverErrorRate() + faults.timeoutRate()) {
            Charge actual = Charge.settlement(q, request.actualUsage());
            loop.after(Math.max(generation, faults.timeoutMillis()), () -> settle(reservation, actual));
            loop.after(faults.timeoutMillis(), () -> callback.accept(CallOutcome.TIMED_OUT));
        } else {
            Charge actual = Charge.settlement(q, request.actualUsage());
            loop.after(generation, () -> {
                settle(reservation, actual);
                metrics.delivered(start, actual, duringBacklog);
                callback.accept(CallOutcome.SUCCEEDED);
            });
        }
    }

    private void settle(ProviderQuota.Reservation reservation, Charge actual) {
        quota.settle(reservation, actual, loop.now());
        settlementListener.run();
    }

    /** This call's own draws: from the run's seed, the request and how many calls it made before. */
    private SplittableRandom draws(SimRequest request) {
        int index = request.index();
        if (index >= attempts.length) {
            attempts = Arrays.copyOf(attempts, Math.max(1_024, Math.max(index + 1, attempts.length * 2)));
        }
        int attempt = attempts[index]++;
        return new SplittableRandom(seed ^ ((long) index << 16 | attempt) * 0x9E3779B97F4A7C15L);
    }
}
