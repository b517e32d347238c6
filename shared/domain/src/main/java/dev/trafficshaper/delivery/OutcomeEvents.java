package dev.trafficshaper.delivery;

/** Publishes one event per terminal outcome (EventBridge on AWS); the detail is the request view. */
public interface OutcomeEvents {

    OutcomeEvents NONE = (detailType, detailJson) -> { };

    void publish(String detailType, String detailJson);
}
