package dev.trafficshaper.delivery;

import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The Deliver step of a finished request: queues its webhook when the caller gave a
 * {@code callbackUrl} ({@link WebhookQueue}; the attempts are {@link WebhookSender}'s, later and
 * elsewhere) and publishes one outcome event ({@link OutcomeEvent}: a reference and a summary, never
 * the response body). Nothing here waits on the caller's receiver, so a slow or dead receiver
 * cannot hold the step, and the step is safe to retry: the webhook is queued first, marked
 * {@linkplain DeliveryState#queued queued} on the request, and queued again by a retry only while
 * no attempt has been recorded (a second entry is then answered by the first's outcome).
 */
public final class Notifier {

    public static final String EVENT_DETAIL_TYPE = "Shaped request finished";

    /** What the step did: whether the webhook is queued (false without a callback or when already under way). */
    public record Delivery(String requestId, boolean webhookQueued) {
    }

    private final RequestStore requests;
    private final WebhookQueue webhooks;
    private final OutcomeEvents events;
    private final LongSupplier clock;

    private Notifier(RequestStore requests, WebhookQueue webhooks, OutcomeEvents events, LongSupplier clock) {
        this.requests = requests;
        this.webhooks = webhooks;
        this.events = events;
        this.clock = clock;
    }

    public static Notifier create(RequestStore requests, WebhookQueue webhooks, OutcomeEvents events,
                                  LongSupplier clock) {
        if (requests == null || webhooks == null || events == null || clock == null) {
            throw new IllegalArgumentException("requests, webhooks, events and clock are required");
        }
        return new Notifier(requests, webhooks, events, clock);
    }

    /** Delivers the request's current (terminal) state; empty when the request is unknown. */
    public Optional<Delivery> deliver(String requestId) {
        return requests.find(requestId, clock.getAsLong()).map(this::deliver);
    }

    public Delivery deliver(RequestRecord record) {
        boolean queued = record.callbackUrl() != null && queueWebhook(record);
        events.publish(EVENT_DETAIL_TYPE, OutcomeEvent.json(record.toBuilder().delivery(null).build()));
        return new Delivery(record.requestId(), queued);
    }

    private boolean queueWebhook(RequestRecord record) {
        TransitionResult marked = requests.recordDelivery(record.requestId(), DeliveryState.queued(clock.getAsLong()),
                clock.getAsLong());
        if (marked.outcome() == TransitionResult.Outcome.UNKNOWN_REQUEST) {
            return false;
        }
        DeliveryState now = marked.record().delivery();
        if (!marked.applied() && now != null && (now.attempts() > 0 || now.delivered())) {
            return false;
        }
        webhooks.enqueue(record.requestId(), record.callbackUrl());
        return true;
    }
}
