package dev.trafficshaper.delivery;

import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One webhook attempt, taken from a {@link WebhookQueue}: renders the request's current view,
 * signs it ({@link WebhookSignature}), POSTs it once with a short timeout, records the
 * {@link DeliveryState} on the request and says what the queue should do next (nothing, try again
 * after the {@link DeliverySchedule}'s pause, or dead-letter it). The queue counts the attempts
 * (SQS's receive count on AWS), so a crash between the POST and the record costs one extra
 * attempt, never a lost webhook.
 *
 * <p>Every attempt of one request carries the same {@value #DELIVERY_ID_HEADER} (the request id),
 * so a receiver deduplicates a webhook sent twice (an answer lost on the way back, a redrive).
 * The body is the same as {@code GET /v1/requests/{id}} without the {@code delivery} block, so it
 * does not change from one attempt to the next.
 */
public final class WebhookSender {

    public static final String DELIVERY_ID_HEADER = "X-Shaper-Delivery-Id";
    public static final String ATTEMPT_HEADER = "X-Shaper-Delivery-Attempt";
    public static final String REQUEST_ID_HEADER = "X-Shaper-Request-Id";
    /** The longest {@code lastError} kept of a failure of the shaper's own. */
    private static final int MAX_ERROR = 1024;

    /** What the queue does with the entry after an attempt. */
    public enum Next { DONE, RETRY, DEAD_LETTER }

    /**
     * The result of one attempt.
     *
     * @param retryAfterMillis the pause before the next attempt when {@code next} is RETRY, else 0
     * @param state            the delivery state recorded; null when the request is unknown
     */
    public record Attempt(String requestId, Next next, long retryAfterMillis, DeliveryState state) {
    }

    private final RequestStore requests;
    private final StatusService status;
    private final WebhookTransport transport;
    private final CallbackUrlPolicy callbacks;
    private final byte[] secret;
    private final DeliverySchedule schedule;

    private WebhookSender(Builder b) {
        this.requests = b.requests;
        this.status = b.status;
        this.transport = b.transport;
        this.callbacks = b.callbacks;
        this.secret = b.secret.clone();
        this.schedule = b.schedule;
    }

    public static Builder builder() {
        return new Builder();
    }

    public DeliverySchedule schedule() {
        return schedule;
    }

    /**
     * Makes attempt {@code attempt} (1-based, as the queue counts) of the request's webhook at
     * {@code nowMillis}.
     */
    public Attempt attempt(String requestId, int attempt, long nowMillis) {
        Optional<RequestRecord> found = requests.find(requestId, nowMillis);
        if (found.isEmpty() || found.get().callbackUrl() == null) {
            return new Attempt(requestId, Next.DONE, 0, null);
        }
        RequestRecord record = found.get();
        DeliveryState before = record.delivery() != null ? record.delivery() : DeliveryState.queued(nowMillis);
        if (before.delivered()) {
            return new Attempt(requestId, Next.DONE, 0, before);
        }
        URI target = URI.create(record.callbackUrl());
        Optional<String> refused = refusal(target);
        if (refused.isPresent()) {
            return recorded(requestId, Next.DONE, 0, before.abandoned(refused.get()), nowMillis);
        }
        String body;
        try {
            body = status.view(record.toBuilder().delivery(null).build(), nowMillis).json();
        } catch (RuntimeException e) {
            return unsent(requestId, attempt, before, "webhook not rendered: " + describe(e), nowMillis);
        }
        long timestamp = nowMillis / 1000;
        Map<String, String> headers = Map.of(
                WebhookSignature.TIMESTAMP_HEADER, Long.toString(timestamp),
                WebhookSignature.SIGNATURE_HEADER, WebhookSignature.sign(secret, timestamp, body),
                REQUEST_ID_HEADER, requestId,
                DELIVERY_ID_HEADER, requestId,
                ATTEMPT_HEADER, Integer.toString(attempt));
        int code = 0;
        String error;
        try {
            code = transport.post(target, headers, body);
            if (code >= 200 && code < 300) {
                return recorded(requestId, Next.DONE, 0, before.succeeded(code, nowMillis), nowMillis);
            }
            error = "HTTP " + code;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = "interrupted";
        } catch (Exception e) {
            error = describe(e);
        }
        return afterFailure(requestId, attempt, before, code, error, nowMillis);
    }

    /**
     * Records attempt {@code attempt} as failed for a reason of the shaper's own, not the
     * receiver's (the attempt threw, or its sender ran out of time before it ended), so that
     * {@code GET} shows it as it shows a receiver's failure, and says what the queue does next: the
     * schedule's pause, or the dead-letter queue after the last attempt. Without it a webhook whose
     * attempts keep failing that way would reach the dead-letter queue while the request still
     * showed its next attempt due. Reads the request; empty-handed ({@code DONE}, no state) when it
     * is unknown or has no callback, and leaves a delivered webhook as it is.
     */
    public Attempt failedOutright(String requestId, int attempt, String error, long nowMillis) {
        Optional<RequestRecord> found = requests.find(requestId, nowMillis);
        if (found.isEmpty() || found.get().callbackUrl() == null) {
            return new Attempt(requestId, Next.DONE, 0, null);
        }
        DeliveryState before = found.get().delivery() != null ? found.get().delivery()
                : DeliveryState.queued(nowMillis);
        if (before.delivered()) {
            return new Attempt(requestId, Next.DONE, 0, before);
        }
        return unsent(requestId, attempt, before, error, nowMillis);
    }

    private Attempt unsent(String requestId, int attempt, DeliveryState before, String error, long nowMillis) {
        String cut = error.length() > MAX_ERROR ? error.substring(0, MAX_ERROR) : error;
        return afterFailure(requestId, attempt, before, 0, cut, nowMillis);
    }

    private Attempt afterFailure(String requestId, int attempt, DeliveryState before, int code, String error,
                                 long nowMillis) {
        OptionalLong pause = schedule.retryAfter(attempt);
        if (pause.isEmpty()) {
            return recorded(requestId, Next.DEAD_LETTER, 0, before.deadLettered(code, error, nowMillis), nowMillis);
        }
        long retryAfter = pause.getAsLong();
        return recorded(requestId, Next.RETRY, retryAfter,
                before.failed(code, error, nowMillis, nowMillis + retryAfter), nowMillis);
    }

    private static String describe(Exception e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    private Attempt recorded(String requestId, Next next, long retryAfterMillis, DeliveryState state, long nowMillis) {
        requests.recordDelivery(requestId, state, nowMillis);
        return new Attempt(requestId, next, retryAfterMillis, state);
    }

    /**
     * Re-checks the target at delivery time, on every address its name resolves to now; the
     * transport checks once more and connects to the address it checked.
     */
    private Optional<String> refusal(URI target) {
        try {
            callbacks.target(target.toString());
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(e.getMessage());
        }
    }

    public static final class Builder {
        private RequestStore requests;
        private StatusService status;
        private WebhookTransport transport;
        private CallbackUrlPolicy callbacks;
        private byte[] secret;
        private DeliverySchedule schedule = DeliverySchedule.defaults();

        private Builder() {
        }

        public Builder requests(RequestStore value) { this.requests = value; return this; }
        /** Renders the body, the same as a status read. */
        public Builder status(StatusService value) { this.status = value; return this; }
        public Builder transport(WebhookTransport value) { this.transport = value; return this; }
        /** Checked again on every resolved address before each attempt. */
        public Builder callbacks(CallbackUrlPolicy value) { this.callbacks = value; return this; }
        /** The HMAC-SHA256 key that signs webhooks (copied). */
        public Builder secret(byte[] value) { this.secret = value == null ? null : value.clone(); return this; }
        /** Default {@link DeliverySchedule#defaults()}. */
        public Builder schedule(DeliverySchedule value) { this.schedule = value; return this; }

        public WebhookSender build() {
            if (requests == null || status == null || transport == null || callbacks == null || secret == null
                    || schedule == null) {
                throw new IllegalStateException("requests, status, transport, callbacks, secret and schedule are"
                        + " required");
            }
            return new WebhookSender(this);
        }
    }
}
