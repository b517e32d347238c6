package dev.trafficshaper.functions.aws;

import dev.trafficshaper.delivery.OutcomeEvents;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;

/** One event per terminal outcome on the shaper's bus, source {@value #SOURCE}. */
public final class EventBridgeOutcomeEvents implements OutcomeEvents {

    public static final String SOURCE = "traffic-shaper";

    private final EventBridgeClient events;
    private final String busName;

    public EventBridgeOutcomeEvents(EventBridgeClient events, String busName) {
        this.events = events;
        this.busName = busName;
    }

    @Override
    public void publish(String detailType, String detailJson) {
        PutEventsResponse response = events.putEvents(b -> b.entries(e -> e.eventBusName(busName).source(SOURCE)
                .detailType(detailType).detail(detailJson)));
        if (response.failedEntryCount() != null && response.failedEntryCount() > 0) {
            throw new IllegalStateException("EventBridge refused the outcome event: "
                    + response.entries().get(0).errorCode() + " " + response.entries().get(0).errorMessage());
        }
    }
}
