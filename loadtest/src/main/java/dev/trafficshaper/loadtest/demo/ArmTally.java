package dev.trafficshaper.loadtest.demo;

import java.util.Arrays;

/**
 * What the client side of one arm saw: each request's final outcome and its latency from the
 * moment it was sent (submitted, for the shaper) to its result. Thread-safe; a few hundred updates
 * a second at most, so one lock is plenty.
 */
final class ArmTally {

    private final int expected;
    private final long[] latencies;
    private int done;
    private int succeeded;
    private long lastFinishMillis;
    private String firstError;

    ArmTally(int expected) {
        this.expected = expected;
        this.latencies = new long[expected];
    }

    synchronized void finished(boolean success, long latencyMillis, long sinceStartMillis) {
        if (done == expected) {
            throw new IllegalStateException("more outcomes than requests");
        }
        latencies[done++] = latencyMillis;
        if (success) {
            succeeded++;
        }
        lastFinishMillis = Math.max(lastFinishMillis, sinceStartMillis);
    }

    /** Keeps the first failure that is not a throttle, for the report. */
    synchronized void error(String description) {
        if (firstError == null) {
            firstError = description;
        }
    }

    int expected() {
        return expected;
    }

    synchronized int done() {
        return done;
    }

    synchronized boolean isComplete() {
        return done == expected;
    }

    synchronized int succeeded() {
        return succeeded;
    }

    synchronized int failed() {
        return done - succeeded;
    }

    /** Milliseconds from the start of the run to the last final outcome. */
    synchronized long lastFinishMillis() {
        return lastFinishMillis;
    }

    synchronized String firstError() {
        return firstError;
    }

    /** The latency at rank {@code p} (nearest rank) over the requests finished so far. */
    synchronized long percentile(double p) {
        if (done == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(latencies, done);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p * done) - 1;
        return sorted[Math.max(0, Math.min(done - 1, rank))];
    }
}
