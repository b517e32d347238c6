package dev.trafficshaper.request;

/**
 * Where the webhook of a finished request stands, kept on its status record and shown in
 * {@code GET /v1/requests/{id}}. Written by the Deliver step (queued, no attempt yet) and after
 * every attempt; never written back once delivered. Times are epoch millis, 0 meaning "not yet".
 *
 * @param attempts            attempts made so far, as the delivery queue counts them: a POST each, or
 *                            one that failed before its POST for a reason of the shaper's own
 * @param lastStatus          HTTP status of the last attempt; 0 when it got no answer (or none was made)
 * @param lastError           nullable; why the last attempt failed, or why none will be made
 * @param lastAttemptAtMillis when the last attempt was made
 * @param nextAttemptAtMillis when the next attempt is due; 0 when none is planned
 * @param delivered           the receiver answered 2xx
 * @param deadLettered        every scheduled attempt failed; the webhook waits in the dead-letter
 *                            queue for an operator's redrive
 */
public record DeliveryState(int attempts, int lastStatus, String lastError, long lastAttemptAtMillis,
                            long nextAttemptAtMillis, boolean delivered, boolean deadLettered) {

    public DeliveryState {
        if (attempts < 0 || lastStatus < 0 || lastAttemptAtMillis < 0 || nextAttemptAtMillis < 0) {
            throw new IllegalArgumentException("delivery counts and times must not be negative");
        }
        if (delivered && deadLettered) {
            throw new IllegalArgumentException("a delivery is not both delivered and dead-lettered");
        }
    }

    /** Queued for its first attempt, due at {@code nowMillis}. */
    public static DeliveryState queued(long nowMillis) {
        return new DeliveryState(0, 0, null, 0, nowMillis, false, false);
    }

    /**
     * The delivery could not be handed off (the outcome event not published, or the webhook not
     * queued): nothing is scheduled until the hand-off is tried again, and {@code error} says why.
     */
    public static DeliveryState notHandedOff(String error) {
        return new DeliveryState(0, 0, error, 0, 0, false, false);
    }

    /** The receiver took it. */
    public DeliveryState succeeded(int status, long nowMillis) {
        return new DeliveryState(attempts + 1, status, null, nowMillis, 0, true, false);
    }

    /** An attempt failed; the next is due at {@code nextAttemptAtMillis}. */
    public DeliveryState failed(int status, String error, long nowMillis, long nextAttemptAtMillis) {
        return new DeliveryState(attempts + 1, status, error, nowMillis, nextAttemptAtMillis, false, false);
    }

    /** The last scheduled attempt failed: the webhook goes to the dead-letter queue. */
    public DeliveryState deadLettered(int status, String error, long nowMillis) {
        return new DeliveryState(attempts + 1, status, error, nowMillis, 0, false, true);
    }

    /** No attempt will be made (the callback URL is refused at delivery time). */
    public DeliveryState abandoned(String error) {
        return new DeliveryState(attempts, lastStatus, error, lastAttemptAtMillis, 0, false, false);
    }

    /**
     * True when {@code next} may replace this state: nothing replaces a delivered webhook, and a
     * late write never takes the attempt count back (a retried Deliver step after an attempt).
     */
    public boolean mayBecome(DeliveryState next) {
        return !delivered && next.attempts >= attempts;
    }

    /** Nothing more will happen without an operator: delivered, dead-lettered or abandoned. */
    public boolean isSettled() {
        return delivered || deadLettered || nextAttemptAtMillis == 0;
    }
}
