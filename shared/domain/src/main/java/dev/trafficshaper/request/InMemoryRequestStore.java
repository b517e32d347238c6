package dev.trafficshaper.request;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Request records in a map, for the local runtime, the simulator and tests. Every method holds the
 * store's monitor, so a caller that holds it too (the in-memory queue) can change several records
 * and queue items as one atomic step, as a DynamoDB transaction does.
 */
public final class InMemoryRequestStore implements RequestStore {

    private final Map<String, RequestRecord> records = new HashMap<>();
    /** ADMITTED and INVOKING records by model and admission time, as the table's sparse index holds them. */
    private final java.util.TreeMap<String, String> unsettled = new java.util.TreeMap<>();
    /** Task tokens by request id, beside the records as on AWS; live while their record is. */
    private final Map<String, String> taskTokens = new HashMap<>();

    @Override
    public synchronized Optional<RequestRecord> find(String requestId, long nowMillis) {
        RequestRecord record = records.get(requestId);
        return record != null && record.isLive(nowMillis) ? Optional.of(record) : Optional.empty();
    }

    @Override
    public synchronized TransitionResult transition(String requestId, RequestEvent event, long nowMillis) {
        if (event instanceof RequestEvent.Admit) {
            throw new IllegalArgumentException("admission goes through RequestQueue.admit, which also fences it");
        }
        if (event instanceof RequestEvent.Requeue) {
            throw new IllegalArgumentException("a requeue goes through RequestQueue.requeue, which restores the queue item");
        }
        return apply(requestId, current -> Lifecycle.next(current, event, nowMillis), nowMillis);
    }

    @Override
    public synchronized Optional<String> taskToken(String requestId, long nowMillis) {
        return find(requestId, nowMillis).map(record -> taskTokens.get(requestId));
    }

    @Override
    public synchronized TransitionResult replaceTaskToken(String requestId, String taskToken, long nowMillis) {
        Optional<RequestRecord> current = find(requestId, nowMillis);
        if (current.isEmpty()) {
            return TransitionResult.unknown(requestId);
        }
        if (current.get().isTerminal()) {
            return TransitionResult.refused(current.get());
        }
        taskTokens.put(requestId, taskToken);
        return TransitionResult.applied(current.get());
    }

    @Override
    public synchronized TransitionResult recordDelivery(String requestId, DeliveryState delivery, long nowMillis) {
        return apply(requestId, current -> RequestStore.acceptsDelivery(current, delivery)
                ? TransitionResult.applied(current.toBuilder().delivery(delivery).build())
                : TransitionResult.refused(current), nowMillis);
    }

    @Override
    public synchronized TransitionResult recordHandoff(String requestId, boolean webhookQueued, long nowMillis) {
        return apply(requestId, current -> RequestStore.handedOff(current, webhookQueued, nowMillis)
                .map(TransitionResult::applied).orElseGet(() -> TransitionResult.refused(current)), nowMillis);
    }

    /**
     * Applies {@code step} to the live record of {@code requestId} and stores the result when it
     * applied. For the in-memory adapters of the other ports, which call it while holding this
     * store's monitor.
     */
    public synchronized TransitionResult apply(String requestId, Function<RequestRecord, TransitionResult> step,
                                               long nowMillis) {
        Optional<RequestRecord> current = find(requestId, nowMillis);
        if (current.isEmpty()) {
            return TransitionResult.unknown(requestId);
        }
        TransitionResult result = step.apply(current.get());
        if (result.applied()) {
            store(current.get(), result.record());
        }
        return result;
    }

    /**
     * Stores {@code record} and its {@code taskToken} (nullable) unless a live record with its id
     * exists; returns that one if so. For the in-memory queue's idempotent enqueue.
     */
    public synchronized Optional<RequestRecord> insertIfAbsent(RequestRecord record, String taskToken,
                                                               long nowMillis) {
        Optional<RequestRecord> existing = find(record.requestId(), nowMillis);
        if (existing.isEmpty()) {
            store(records.get(record.requestId()), record);
            if (taskToken == null) {
                taskTokens.remove(record.requestId());
            } else {
                taskTokens.put(record.requestId(), taskToken);
            }
        }
        return existing;
    }

    /**
     * The live ADMITTED or INVOKING records of {@code modelKey} admitted before
     * {@code admittedBeforeMillis}, oldest first, at most {@code limit}.
     */
    public synchronized List<RequestRecord> unsettled(String modelKey, long admittedBeforeMillis, int limit,
                                                      long nowMillis) {
        List<RequestRecord> found = new ArrayList<>();
        String from = modelKey + "|";
        String to = unsettledKey(modelKey, admittedBeforeMillis, "");
        for (String id : unsettled.subMap(from, true, to, false).values()) {
            if (found.size() == limit) {
                break;
            }
            find(id, nowMillis).ifPresent(found::add);
        }
        return found;
    }

    private void store(RequestRecord previous, RequestRecord next) {
        if (previous != null && isUnsettled(previous)) {
            unsettled.remove(unsettledKey(previous.modelKey(), previous.admittedAtMillis(), previous.requestId()));
        }
        records.put(next.requestId(), next);
        if (isUnsettled(next)) {
            unsettled.put(unsettledKey(next.modelKey(), next.admittedAtMillis(), next.requestId()), next.requestId());
        }
    }

    private static boolean isUnsettled(RequestRecord record) {
        return record.state() == RequestState.ADMITTED || record.state() == RequestState.INVOKING;
    }

    private static String unsettledKey(String modelKey, long admittedAtMillis, String requestId) {
        return modelKey + "|" + String.format("%020d", Math.max(0, admittedAtMillis)) + "|" + requestId;
    }
}
