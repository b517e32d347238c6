package dev.trafficshaper.local;

import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The running local runtime's pass over ended requests whose delivery was never handed off: each
 * gets its hand-off (event published, webhook queued), once it has been ended for longer than the
 * grace.
 *
 * <p>Why: whoever writes a terminal state hands the delivery off before it resumes the workflow
 * ({@code HandoffThenResume}). On AWS a hand-off that fails is tried again by the workflow's
 * Finalize step; locally the workflow is the outcome listener, and the start-up pass
 * ({@code LocalRuntime.queueLeftoverWebhooks}) runs only when a process starts. So a hand-off that
 * failed in a running process (the table unreachable for a moment, say: the failure is recorded as
 * {@code DeliveryState.notHandedOff}), or one that never ran, left the request ended and its
 * webhook never queued until the next restart. This pass finds those while the process runs.
 *
 * <p>When: at most once per {@code period} on the runtime's clock, from the runtime's one-second
 * housekeeping. Which: the candidates the store lists (on DynamoDB a Scan of the ended status items
 * with a callback and no hand-off mark), read again and kept when they still are ended and
 * unmarked, have no delivery state or one that says the hand-off failed, and ended at least
 * {@code grace} ago, so that a writer in the middle of its own hand-off is not raced. A hand-off that races one all the same queues the webhook twice; the receiver sees
 * one delivery id twice, as after a restart.
 */
final class UndeliveredSweep {

    private final Supplier<List<String>> candidates;
    private final RequestStore requests;
    private final Consumer<RequestRecord> handOff;
    private final long periodMillis;
    private final long graceMillis;
    private long nextAtMillis = Long.MIN_VALUE;

    /**
     * @param candidates ids of requests that may have ended without a hand-off (a superset is fine)
     * @param handOff    hands one ended request's delivery off
     */
    UndeliveredSweep(Supplier<List<String>> candidates, RequestStore requests, Consumer<RequestRecord> handOff,
                     long periodMillis, long graceMillis) {
        if (periodMillis < 1 || graceMillis < 0) {
            throw new IllegalArgumentException("period must be positive and grace not negative");
        }
        this.candidates = Objects.requireNonNull(candidates, "candidates");
        this.requests = Objects.requireNonNull(requests, "requests");
        this.handOff = Objects.requireNonNull(handOff, "handOff");
        this.periodMillis = periodMillis;
        this.graceMillis = graceMillis;
    }

    /** Hands off what is due, if a period has passed since the last pass; returns how many. */
    int sweep(long nowMillis) {
        if (nowMillis < nextAtMillis) {
            return 0;
        }
        nextAtMillis = nowMillis + periodMillis;
        int handedOff = 0;
        for (String requestId : candidates.get()) {
            RequestRecord record = requests.find(requestId, nowMillis).orElse(null);
            if (record != null && owed(record) && record.finishedAtMillis() + graceMillis <= nowMillis) {
                handOff.accept(record);
                handedOff++;
            }
        }
        return handedOff;
    }

    /** Ended, and its delivery neither handed off nor begun: none, or a failed hand-off with nothing scheduled. */
    private static boolean owed(RequestRecord record) {
        if (!record.isTerminal() || record.isHandedOff()) {
            return false;
        }
        DeliveryState delivery = record.delivery();
        return delivery == null || (delivery.attempts() == 0 && !delivery.delivered() && !delivery.deadLettered()
                && delivery.nextAttemptAtMillis() == 0);
    }
}
