package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Final statuses that arrive without asking: the application's webhook endpoint (after
 * {@link WebhookVerifier} accepts the call) or its consumer of the outcome event hands each one
 * here, and a {@link ShaperClient} built with {@link ShaperClient.Builder#outcomes(OutcomeInbox)}
 * completes its awaits from them, polling only as a slow fallback for a push that never comes.
 *
 * <p>An outcome may arrive before anyone awaits it (a fast request, an await started late): the
 * last {@code retained} outcomes nobody was waiting for are kept, oldest dropped first, and an
 * await of one of them completes at once. Thread-safe; one inbox may serve several clients.
 */
public final class OutcomeInbox {

    public static final int DEFAULT_RETAINED = 10_000;

    private final int retained;
    private final Map<String, List<CompletableFuture<RequestStatus>>> waiting = new HashMap<>();
    private final LinkedHashMap<String, RequestStatus> unclaimed;

    private OutcomeInbox(int retained) {
        this.retained = retained;
        this.unclaimed = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, RequestStatus> eldest) {
                return size() > OutcomeInbox.this.retained;
            }
        };
    }

    public static OutcomeInbox create() {
        return create(DEFAULT_RETAINED);
    }

    /** An inbox that keeps up to {@code retained} outcomes that arrive before their await (0: none). */
    public static OutcomeInbox create(int retained) {
        if (retained < 0) {
            throw new IllegalArgumentException("retained must not be negative, was " + retained);
        }
        return new OutcomeInbox(retained);
    }

    /**
     * Hands over a final status that was pushed. A pending status is ignored: a push is only ever
     * an outcome.
     *
     * @return true if an await was waiting for it
     */
    public boolean deliver(RequestStatus status) {
        Objects.requireNonNull(status, "status");
        if (!status.isTerminal()) {
            return false;
        }
        List<CompletableFuture<RequestStatus>> awaits;
        synchronized (this) {
            awaits = waiting.remove(status.requestId());
            if (awaits == null) {
                unclaimed.put(status.requestId(), status);
                return false;
            }
        }
        awaits.forEach(await -> await.complete(status));
        return true;
    }

    /**
     * Hands over the body of a webhook call, verified first with {@link WebhookVerifier}.
     *
     * @throws IllegalArgumentException if the body is not a webhook body (see {@link RequestStatus#fromWebhook})
     */
    public boolean deliverWebhook(String body) {
        return deliver(RequestStatus.fromWebhook(body));
    }

    /**
     * Hands over an outcome event: the EventBridge event as delivered (its {@code detail} is read)
     * or the detail alone. The event carries no response: an await it completes with a success
     * reads the status once for the response.
     *
     * @throws IllegalArgumentException if neither the event's detail nor the JSON itself names a request and a status
     */
    public boolean deliverEvent(String eventJson) {
        Objects.requireNonNull(eventJson, "eventJson");
        JsonNode json = Json.parseLeniently(eventJson);
        JsonNode detail = json.path("detail").isObject() ? json.path("detail") : json;
        return deliver(RequestStatus.fromWebhook(detail.toString()));
    }

    /** A future completed with the request's pushed outcome; already complete if it came before. */
    synchronized CompletableFuture<RequestStatus> expect(String requestId) {
        RequestStatus early = unclaimed.get(requestId);
        if (early != null) {
            return CompletableFuture.completedFuture(early);
        }
        CompletableFuture<RequestStatus> await = new CompletableFuture<>();
        waiting.computeIfAbsent(requestId, id -> new ArrayList<>()).add(await);
        return await;
    }

    /** Stops waiting on {@code await} (its await ended otherwise), so the inbox holds nothing for it. */
    synchronized void forget(String requestId, CompletableFuture<RequestStatus> await) {
        List<CompletableFuture<RequestStatus>> awaits = waiting.get(requestId);
        if (awaits != null && awaits.remove(await) && awaits.isEmpty()) {
            waiting.remove(requestId);
        }
    }

    /** Awaits currently waiting for a push, for tests and metrics. */
    synchronized int waitingCount() {
        return waiting.values().stream().mapToInt(List::size).sum();
    }
}
