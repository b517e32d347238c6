package dev.trafficshaper.delivery;

import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Delivers a finished request: one EventBridge-style event, and the webhook when the caller gave a
 * {@code callbackUrl}. The webhook carries the same body as {@code GET /v1/requests/{id}}, signed
 * ({@link WebhookSignature}); it is tried a bounded number of times with growing pauses, and a
 * webhook that still fails is reported in the result, not retried forever: the status stays
 * readable, so nothing is lost. Receivers should deduplicate on {@code requestId}, since a retried
 * delivery step may send the same body twice.
 */
public final class Notifier {

    public static final String EVENT_DETAIL_TYPE = "Shaped request finished";

    /** Webhook attempts per delivery unless the builder says otherwise: 1 s and 2 s apart. */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;

    /** Something the notifier can wait on between attempts; tests pass one that returns at once. */
    public interface Pause {
        void sleep(long millis) throws InterruptedException;
    }

    /** What a delivery did. {@code webhookStatus} is 0 without a webhook, -1 when every attempt failed. */
    public record Delivery(String requestId, boolean eventPublished, int webhookAttempts, int webhookStatus,
                           String webhookError) {
    }

    private final RequestStore requests;
    private final StatusService status;
    private final WebhookTransport transport;
    private final OutcomeEvents events;
    private final CallbackUrlPolicy callbacks;
    private final byte[] secret;
    private final int maxAttempts;
    private final Pause pause;
    private final LongSupplier clock;

    private Notifier(Builder b) {
        this.requests = b.requests;
        this.status = b.status;
        this.transport = b.transport;
        this.events = b.events;
        this.callbacks = b.callbacks;
        this.secret = b.secret.clone();
        this.maxAttempts = b.maxAttempts;
        this.pause = b.pause;
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Delivers the request's current (terminal) state; empty when the request is unknown. */
    public Optional<Delivery> deliver(String requestId) throws InterruptedException {
        long now = clock.getAsLong();
        Optional<RequestRecord> found = requests.find(requestId, now);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(deliver(found.get()));
    }

    public Delivery deliver(RequestRecord record) throws InterruptedException {
        long now = clock.getAsLong();
        String body = status.view(record, now).json();
        events.publish(EVENT_DETAIL_TYPE, body);
        if (record.callbackUrl() == null) {
            return new Delivery(record.requestId(), true, 0, 0, null);
        }
        URI target = URI.create(record.callbackUrl());
        Optional<String> refused = refusal(target);
        if (refused.isPresent()) {
            return new Delivery(record.requestId(), true, 0, -1, refused.get());
        }
        String lastError = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            long timestamp = clock.getAsLong() / 1000;
            Map<String, String> headers = Map.of(
                    WebhookSignature.TIMESTAMP_HEADER, Long.toString(timestamp),
                    WebhookSignature.SIGNATURE_HEADER, WebhookSignature.sign(secret, timestamp, body),
                    "X-Shaper-Request-Id", record.requestId());
            try {
                int code = transport.post(target, headers, body);
                if (code >= 200 && code < 300) {
                    return new Delivery(record.requestId(), true, attempt, code, null);
                }
                lastError = "HTTP " + code;
                if (code >= 400 && code < 500 && code != 408 && code != 429) {
                    return new Delivery(record.requestId(), true, attempt, code, lastError);
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            if (attempt < maxAttempts) {
                pause.sleep(1000L << (attempt - 1));
            }
        }
        return new Delivery(record.requestId(), true, maxAttempts, -1, lastError);
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
        private OutcomeEvents events = OutcomeEvents.NONE;
        private CallbackUrlPolicy callbacks;
        private byte[] secret;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Pause pause = Thread::sleep;
        private LongSupplier clock = System::currentTimeMillis;

        private Builder() {
        }

        public Builder requests(RequestStore value) { this.requests = value; return this; }
        /** Renders the body the webhook and the event carry, the same as a status read. */
        public Builder status(StatusService value) { this.status = value; return this; }
        public Builder transport(WebhookTransport value) { this.transport = value; return this; }
        /** Where outcome events go; default nowhere. */
        public Builder events(OutcomeEvents value) { this.events = value; return this; }
        /** Checked again on every resolved address before each webhook attempt. */
        public Builder callbacks(CallbackUrlPolicy value) { this.callbacks = value; return this; }
        /** The HMAC-SHA256 key that signs webhooks (copied). */
        public Builder secret(byte[] value) { this.secret = value == null ? null : value.clone(); return this; }
        /** Webhook attempts per delivery; default {@value #DEFAULT_MAX_ATTEMPTS}. */
        public Builder maxAttempts(int value) { this.maxAttempts = value; return this; }
        /** The wait between attempts; default {@link Thread#sleep(long)}. */
        public Builder pause(Pause value) { this.pause = value; return this; }
        public Builder clock(LongSupplier value) { this.clock = value; return this; }

        public Notifier build() {
            if (requests == null || status == null || transport == null || events == null || callbacks == null
                    || secret == null || pause == null || clock == null) {
                throw new IllegalStateException("requests, status, transport, events, callbacks, secret, pause and"
                        + " clock are required");
            }
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be positive, was " + maxAttempts);
            }
            return new Notifier(this);
        }
    }
}
