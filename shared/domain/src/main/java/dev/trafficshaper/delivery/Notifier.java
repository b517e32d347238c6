package dev.trafficshaper.delivery;

import dev.trafficshaper.lifecycle.DeliveryHandoff;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The hand-off of a finished request's delivery, done by whoever writes its terminal state before
 * it resumes the workflow: queues its webhook when the caller gave a {@code callbackUrl}
 * ({@link WebhookQueue}; the attempts are {@link WebhookSender}'s, later and elsewhere), publishes
 * one outcome event ({@link OutcomeEvent}: a reference and a summary, never the response body), and
 * then marks the request handed off ({@link RequestStore#recordHandoff}). Nothing here waits on the
 * caller's receiver. A repeat after the mark does nothing; a repeat before it (a crash in between)
 * publishes the event again and queues a second entry, which the first one's outcome answers. A
 * hand-off that fails is recorded on the request ({@link DeliveryState#notHandedOff}) and thrown.
 */
public final class Notifier implements DeliveryHandoff {

    public static final String EVENT_DETAIL_TYPE = "Shaped request finished";

    /** What the hand-off did: whether the webhook is queued (false without a callback or when already handed off). */
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

    /** Hands off the delivery of the request's current (terminal) state; empty when the request is unknown. */
    public Optional<Delivery> deliver(String requestId) {
        return requests.find(requestId, clock.getAsLong()).map(this::deliver);
    }

    @Override
    public void handOff(RequestRecord terminal) {
        deliver(terminal);
    }

    /** Hands off the delivery of {@code record} (terminal), unless it already is. */
    public Delivery deliver(RequestRecord record) {
        if (record.isHandedOff() || !record.isTerminal()) {
            return new Delivery(record.requestId(), false);
        }
        boolean webhook = record.callbackUrl() != null;
        try {
            if (webhook) {
                webhooks.enqueue(record);
            }
            events.publish(EVENT_DETAIL_TYPE, OutcomeEvent.json(record.toBuilder().delivery(null).build()));
        } catch (RuntimeException e) {
            recordFailure(record, e);
            throw e;
        }
        TransitionResult marked = requests.recordHandoff(record.requestId(), webhook, clock.getAsLong());
        return new Delivery(record.requestId(), webhook && marked.applied());
    }

    private void recordFailure(RequestRecord record, RuntimeException failure) {
        String error = "delivery not handed off: " + failure.getClass().getSimpleName() + ": " + failure.getMessage();
        try {
            requests.recordDelivery(record.requestId(), DeliveryState.notHandedOff(
                    error.length() > 1024 ? error.substring(0, 1024) : error), clock.getAsLong());
        } catch (RuntimeException unrecorded) {
            failure.addSuppressed(unrecorded);
        }
    }
}
