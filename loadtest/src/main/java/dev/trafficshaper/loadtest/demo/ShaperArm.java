package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.client.RequestStatus;
import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.client.Submission;
import dev.trafficshaper.threads.DaemonThreads;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An application that sends the burst through the shaper's HTTP API with the Java client: each
 * request is submitted at its arrival time and awaited ({@link ShaperClient#submitAndAwait}). The
 * client polls at least every {@code pollInterval} of wall time, so a result is seen up to that
 * late (times the demo clock's scale, on the demo clock).
 */
final class ShaperArm implements AutoCloseable {

    private final ShaperClient client;
    private final String modelKey;
    private final int maxTokens;
    private final Duration awaitTimeout;
    private final ScheduledExecutorService arrivals;

    ShaperArm(URI apiBaseUri, String modelKey, long maxTokens, Duration pollInterval, Duration awaitTimeout) {
        this.client = ShaperClient.builder()
                .baseUri(apiBaseUri)
                .pollInterval(pollInterval)
                .maxPollInterval(pollInterval)
                .build();
        this.modelKey = modelKey;
        this.maxTokens = Math.toIntExact(maxTokens);
        this.awaitTimeout = awaitTimeout;
        this.arrivals = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("demo-shaper-arrivals"));
    }

    /** One round trip before the clock starts, so the first submissions do not pay for class loading. */
    void warmUp() {
        client.models();
    }

    /** Submits every request at its arrival time on the demo clock; returns at once. */
    void start(Burst burst, ArmTally tally, DemoClock clock) {
        for (Burst.Request request : burst.requests()) {
            arrivals.schedule(() -> submit(request, tally, clock), clock.wallMillisUntil(request.arrivalOffsetMillis()),
                    TimeUnit.MILLISECONDS);
        }
    }

    private void submit(Burst.Request request, ArmTally tally, DemoClock clock) {
        long sent = clock.elapsedMillis();
        Submission submission = Submission.text(modelKey, request.prompt(), maxTokens);
        client.submitAndAwait(submission, awaitTimeout).whenComplete((status, error) -> {
            long now = clock.elapsedMillis();
            boolean success = error == null && status.isSucceeded();
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                tally.error(cause.getClass().getSimpleName() + ": " + cause.getMessage());
            } else if (!success) {
                tally.error(describe(status));
            }
            tally.finished(success, now - sent, now);
        });
    }

    private static String describe(RequestStatus status) {
        return "HTTP " + status.httpStatus() + " " + status.status() + status.reason().map(r -> " (" + r + ")")
                .orElse("");
    }

    @Override
    public void close() {
        arrivals.shutdownNow();
        client.close();
    }
}
