package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.Identifiers;

/**
 * What the drainer of one model last told everyone else: how much work is queued and when the
 * pacer can next admit. Submissions read it to predict a new request's start (and refuse early
 * what cannot meet its deadline); {@code GET /v1/models} shows it.
 *
 * @param backlogInteractive queued interactive work, in minutes of the model's quota
 * @param backlogBulk        queued bulk work, in minutes of the model's quota
 * @param nextSlotMillis     the earliest time the pacer would admit the next request
 * @param target             the pacer's current target utilisation (lowered after a throttle)
 * @param pacerState         the drainer's pacer state for a successor, serialized; may be empty
 */
public record ModelStatus(String modelKey, long publishedAtMillis, long queueDepth, double backlogInteractive,
                          double backlogBulk, long nextSlotMillis, double target, long admitted, long throttles,
                          String pacerState) {

    public ModelStatus {
        Identifiers.require("model", modelKey);
        if (queueDepth < 0 || backlogInteractive < 0 || backlogBulk < 0) {
            throw new IllegalArgumentException("queue depth and backlog must not be negative");
        }
        pacerState = pacerState == null ? "" : pacerState;
    }

    /** A model nobody has drained yet: empty queue, admits at once. */
    public static ModelStatus idle(String modelKey, double target, long nowMillis) {
        return new ModelStatus(modelKey, nowMillis, 0, 0, 0, nowMillis, target, 0, 0, "");
    }

    public boolean isStale(long nowMillis, long maxAgeMillis) {
        return nowMillis - publishedAtMillis > maxAgeMillis;
    }
}
