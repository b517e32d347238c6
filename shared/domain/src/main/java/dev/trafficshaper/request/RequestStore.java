package dev.trafficshaper.request;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The request status records. Requests are created by {@code RequestQueue.enqueue}, which writes
 * the status and the queue item together; admission and queue expiry also go through the queue.
 * Every other transition comes here.
 */
public interface RequestStore {

    /** The live record of {@code requestId}: absent when unknown or past its retention. */
    Optional<RequestRecord> find(String requestId, long nowMillis);

    /** The live records of {@code requestIds}, keyed by id; unknown ids are left out. */
    default Map<String, RequestRecord> findAll(Collection<String> requestIds, long nowMillis) {
        Map<String, RequestRecord> found = new HashMap<>();
        for (String id : requestIds) {
            find(id, nowMillis).ifPresent(record -> found.put(id, record));
        }
        return found;
    }

    /**
     * The token that resumes the request's workflow, read where the workflow is signalled: absent
     * when the request has none (a local request), is unknown or past its retention. The token is
     * kept apart from the record (on AWS its own item: a token of up to 1 KB in the status item
     * would double the cost of each of its writes), stored with the request by
     * {@code RequestQueue.enqueue} and replaced by {@link #replaceTaskToken}.
     */
    Optional<String> taskToken(String requestId, long nowMillis);

    /**
     * Makes {@code taskToken} the token that resumes the request's workflow, while the request has
     * not ended: a retried Admit task waits on a new token. Applied with the current record; refused,
     * with the current record and the stored token unchanged, once the request is terminal; the
     * caller then resumes the workflow itself.
     */
    TransitionResult replaceTaskToken(String requestId, String taskToken, long nowMillis);

    /**
     * Applies {@code event} if the request is in one of {@code event.from()}; one conditional write.
     * A refusal carries the current record, read from the failed write itself.
     *
     * @throws IllegalArgumentException for {@link RequestEvent.Admit}, which only the queue applies
     */
    TransitionResult transition(String requestId, RequestEvent event, long nowMillis);

    /**
     * Stores where the request's webhook stands. Applied only to a terminal request whose stored
     * delivery state {@linkplain DeliveryState#mayBecome may become} {@code delivery}; one
     * conditional write. A refusal carries the current record.
     */
    TransitionResult recordDelivery(String requestId, DeliveryState delivery, long nowMillis);

    /**
     * Marks the terminal request's delivery handed off: its outcome event is published and, when
     * {@code webhookQueued}, its webhook queued. Applied once, to a terminal request not yet handed
     * off; one conditional write (two when a webhook attempt was already recorded in between). The
     * delivery state becomes {@linkplain DeliveryState#queued queued} unless an attempt is
     * recorded, and a recorded hand-off failure is cleared. A refusal carries the current record.
     */
    TransitionResult recordHandoff(String requestId, boolean webhookQueued, long nowMillis);

    /** The record {@link #recordHandoff} stores, empty when it refuses; for adapters that check it in memory. */
    static java.util.Optional<RequestRecord> handedOff(RequestRecord current, boolean webhookQueued, long nowMillis) {
        if (!current.isTerminal() || current.isHandedOff()) {
            return java.util.Optional.empty();
        }
        DeliveryState delivery = current.delivery();
        boolean noAttempt = delivery == null || (delivery.attempts() == 0 && !delivery.delivered());
        if (noAttempt) {
            delivery = webhookQueued ? DeliveryState.queued(nowMillis) : null;
        }
        return java.util.Optional.of(current.toBuilder().delivery(delivery).handedOffAtMillis(nowMillis).build());
    }

    /** The rule {@link #recordDelivery} applies, for adapters that check it in memory. */
    static boolean acceptsDelivery(RequestRecord current, DeliveryState delivery) {
        return current.isTerminal() && (current.delivery() == null || current.delivery().mayBecome(delivery));
    }
}
