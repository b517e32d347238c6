package dev.trafficshaper.aws.dynamodb;

import java.util.concurrent.ThreadLocalRandom;

/** Full-jitter pause between retries of a transaction that lost a conflict with another one. */
final class Backoff {

    private Backoff() {
    }

    static void pause(int attempt) {
        long cap = Math.min(200, 5L << Math.min(attempt, 6));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(cap + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying a DynamoDB transaction", e);
        }
    }
}
