package dev.trafficshaper.loadtest.bench;

import dev.trafficshaper.aws.dynamodb.DynamoDbCallPattern;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * DynamoDB as the drainer feels it: every port operation counts the calls the DynamoDB adapter
 * would make ({@link DynamoDbCallPattern}) and waits the latency of those made one after another.
 */
final class ModeledCalls {

    private final long latencyNanos;
    private final AtomicLong calls = new AtomicLong();

    ModeledCalls(double latencyMillis) {
        this.latencyNanos = Math.round(latencyMillis * 1_000_000);
    }

    void pay(DynamoDbCallPattern pattern) {
        calls.addAndGet(pattern.calls());
        wait(pattern.sequential());
    }

    /** Waits {@code calls} call latencies. */
    void wait(int sequentialCalls) {
        long until = System.nanoTime() + sequentialCalls * latencyNanos;
        for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    long count() {
        return calls.get();
    }

    long latencyMicros() {
        return TimeUnit.NANOSECONDS.toMicros(latencyNanos);
    }
}
