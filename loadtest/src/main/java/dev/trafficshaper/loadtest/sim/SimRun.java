package dev.trafficshaper.loadtest.sim;

import dev.trafficshaper.loadtest.scenario.Scenario;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** What a strategy sees of one simulation run: the clock, Bedrock, the metrics and its own randomness. */
public final class SimRun {

    private final Scenario scenario;
    private final EventLoop loop;
    private final SimulatedBedrock bedrock;
    private final RunMetrics metrics;
    private final SplittableRandom random;

    public SimRun(Scenario scenario, EventLoop loop, SimulatedBedrock bedrock, RunMetrics metrics,
            SplittableRandom random) {
        this.scenario = scenario;
        this.loop = loop;
        this.bedrock = bedrock;
        this.metrics = metrics;
        this.random = random;
    }

    public Scenario scenario() {
        return scenario;
    }

    public EventLoop loop() {
        return loop;
    }

    public long now() {
        return loop.now();
    }

    public RunMetrics metrics() {
        return metrics;
    }

    public SplittableRandom random() {
        return random;
    }

    /** Sends a request that was not waiting (a first attempt straight from the caller). */
    public void send(SimRequest request, Consumer<CallOutcome> callback) {
        metrics.callStarted(request, now());
        bedrock.call(request, metrics.backlogged(), callback);
    }

    /** Sends a request that was waiting (queued or backing off). */
    public void sendFromWait(SimRequest request, Consumer<CallOutcome> callback) {
        boolean backlogged = metrics.backlogged();
        metrics.stoppedWaiting(now());
        metrics.callStarted(request, now());
        bedrock.call(request, backlogged, callback);
    }

    /** A request starts waiting and will be sent (or dropped) by {@code action} at {@code atMillis}. */
    public void waitUntil(long atMillis, Runnable action) {
        metrics.startedWaiting(now());
        loop.schedule(atMillis, action);
    }

    /**
     * When the provider's meter would accept the request, read from the meter itself: only the
     * oracle strategy may ask (no real client can).
     */
    public long earliestAdmission(SimRequest request) {
        return bedrock.earliestAdmission(request, now());
    }

    /** Runs {@code listener} after every settlement at the provider (the oracle's wake-up). */
    public void onSettlement(Runnable listener) {
        bedrock.onSettlement(listener);
    }

    public void finish(SimRequest request, boolean success) {
        metrics.finished(request, success, now());
    }
}
