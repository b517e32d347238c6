package dev.trafficshaper.loadtest.shaper;

import dev.trafficshaper.loadtest.scenario.LambdaModel;
import dev.trafficshaper.loadtest.sim.EventLoop;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * One Lambda function invoked asynchronously, in virtual time (see {@link LambdaModel}): an event
 * reaches a handler after a log-normal delay; a warm idle instance takes it at once, else a new
 * instance takes it after a cold start, else, at the concurrency limit, it waits in a FIFO backlog
 * until an instance frees. A handler is given a completion to run when its instance is free again.
 */
final class SimulatedLambda {

    private record Idle(long sinceMillis) {
    }

    private final EventLoop loop;
    private final LambdaModel model;
    private final SplittableRandom random;
    private final double sigma;
    /** Warm idle instances, most recently used first. */
    private final Deque<Idle> idle = new ArrayDeque<>();
    private final Deque<Consumer<Runnable>> backlog = new ArrayDeque<>();
    private int instances;
    private int busy;
    private long coldStarts;
    private int maxBusy;
    private long busyMillis;

    SimulatedLambda(EventLoop loop, LambdaModel model, SplittableRandom random) {
        this.loop = loop;
        this.model = model;
        this.random = random;
        this.sigma = model.sigma();
    }

    /** An asynchronous {@code Invoke}, accepted now. */
    void invoke(Consumer<Runnable> handler) {
        loop.after(delayMillis(), () -> arrive(handler));
    }

    long coldStarts() {
        return coldStarts;
    }

    int maxBusy() {
        return maxBusy;
    }

    /** Instance time billed so far: cold starts and handlers, from start to free. */
    long busyMillis() {
        return busyMillis;
    }

    private void arrive(Consumer<Runnable> handler) {
        long now = loop.now();
        while (!idle.isEmpty() && now - idle.peekLast().sinceMillis() > model.warmSeconds() * 1_000) {
            idle.pollLast();
            instances--;
        }
        if (!idle.isEmpty()) {
            idle.pollFirst();
            run(handler);
        } else if (instances < model.concurrency()) {
            instances++;
            coldStarts++;
            busy++;
            maxBusy = Math.max(maxBusy, busy);
            loop.after(model.coldStartMillis(), () -> {
                busy--;
                busyMillis += model.coldStartMillis();
                run(handler);
            });
        } else {
            backlog.addLast(handler);
        }
    }

    private void run(Consumer<Runnable> handler) {
        busy++;
        maxBusy = Math.max(maxBusy, busy);
        boolean[] freed = new boolean[1];
        long start = loop.now();
        handler.accept(() -> {
            if (freed[0]) {
                throw new IllegalStateException("an instance was freed twice");
            }
            freed[0] = true;
            busy--;
            busyMillis += loop.now() - start;
            Consumer<Runnable> waiting = backlog.pollFirst();
            if (waiting != null) {
                run(waiting);
            } else {
                idle.addFirst(new Idle(loop.now()));
            }
        });
    }

    /** Log-normal with the model's median and 99th percentile; Box-Muller, so it depends only on the seed. */
    private long delayMillis() {
        if (sigma == 0) {
            return model.medianMillis();
        }
        double u1 = 1.0 - random.nextDouble();
        double u2 = random.nextDouble();
        double z = Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        return Math.round(model.medianMillis() * Math.exp(sigma * z));
    }
}
