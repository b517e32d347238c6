package dev.trafficshaper.composition;

import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.submission.CallbackUrlPolicy;

/**
 * The choices a deployment makes that are not ports: which callback URLs are accepted, the largest
 * body, the retry budgets, the drainer's bookkeeping. The defaults are the deployed ones.
 *
 * @param callbacks       callback URLs accepted at submission and checked before each webhook
 * @param maxBodyBytes    largest {@code POST /v1/requests} body
 * @param maxRequeues     how often a throttled or transiently failed request goes back to the queue
 * @param webhookAttempts webhook attempts per delivery
 * @param drain           the drainer's lease, heads, poll and status periods
 */
public record ShaperSettings(CallbackUrlPolicy callbacks, int maxBodyBytes, int maxRequeues, int webhookAttempts,
                             DrainSettings drain) {

    public ShaperSettings {
        if (callbacks == null || drain == null) {
            throw new IllegalArgumentException("callbacks and drain settings are required");
        }
        if (maxBodyBytes < 1 || maxBodyBytes > PayloadPolicy.DEFAULT_MAX_BYTES) {
            throw new IllegalArgumentException("maxBodyBytes must be in [1, " + PayloadPolicy.DEFAULT_MAX_BYTES
                    + "], was " + maxBodyBytes);
        }
        if (maxRequeues < 0 || webhookAttempts < 1) {
            throw new IllegalArgumentException("maxRequeues must not be negative and webhookAttempts must be"
                    + " positive, were " + maxRequeues + " and " + webhookAttempts);
        }
    }

    /** As deployed: https and public callbacks only, 20 MiB bodies, default retry budgets. */
    public static ShaperSettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private CallbackUrlPolicy callbacks = CallbackUrlPolicy.strict();
        private int maxBodyBytes = PayloadPolicy.DEFAULT_MAX_BYTES;
        private int maxRequeues = InvocationService.DEFAULT_MAX_REQUEUES;
        private int webhookAttempts = Notifier.DEFAULT_MAX_ATTEMPTS;
        private DrainSettings drain = DrainSettings.defaults();

        private Builder() {
        }

        /** Default {@link CallbackUrlPolicy#strict()}. */
        public Builder callbacks(CallbackUrlPolicy value) { this.callbacks = value; return this; }
        /** Default the payload limit, {@value PayloadPolicy#DEFAULT_MAX_BYTES} bytes. */
        public Builder maxBodyBytes(int value) { this.maxBodyBytes = value; return this; }
        public Builder maxRequeues(int value) { this.maxRequeues = value; return this; }
        public Builder webhookAttempts(int value) { this.webhookAttempts = value; return this; }
        public Builder drain(DrainSettings value) { this.drain = value; return this; }

        public ShaperSettings build() {
            return new ShaperSettings(callbacks, maxBodyBytes, maxRequeues, webhookAttempts, drain);
        }
    }
}
