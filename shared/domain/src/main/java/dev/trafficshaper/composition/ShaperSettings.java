package dev.trafficshaper.composition;

import dev.trafficshaper.delivery.DeliverySchedule;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.submission.CallbackUrlPolicy;

/**
 * The choices a deployment makes that are not ports: which callback URLs are accepted, the largest
 * body, the webhook retries, the drainer's bookkeeping. The defaults are the deployed ones.
 *
 * @param callbacks       callback URLs accepted at submission and checked before each webhook
 * @param maxBodyBytes    largest {@code POST /v1/requests} body
 * @param delivery        when a failed webhook is tried again, and how often
 * @param drain           the drainer's lease, heads, poll and status periods
 */
public record ShaperSettings(CallbackUrlPolicy callbacks, int maxBodyBytes, DeliverySchedule delivery,
                             DrainSettings drain) {

    public ShaperSettings {
        if (callbacks == null || delivery == null || drain == null) {
            throw new IllegalArgumentException("callbacks, delivery and drain settings are required");
        }
        if (maxBodyBytes < 1 || maxBodyBytes > PayloadPolicy.DEFAULT_MAX_BYTES) {
            throw new IllegalArgumentException("maxBodyBytes must be in [1, " + PayloadPolicy.DEFAULT_MAX_BYTES
                    + "], was " + maxBodyBytes);
        }
    }

    /** As deployed: https and public callbacks only, 20 MiB bodies, the default webhook schedule. */
    public static ShaperSettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private CallbackUrlPolicy callbacks = CallbackUrlPolicy.strict();
        private int maxBodyBytes = PayloadPolicy.DEFAULT_MAX_BYTES;
        private DeliverySchedule delivery = DeliverySchedule.defaults();
        private DrainSettings drain = DrainSettings.defaults();

        private Builder() {
        }

        /** Default {@link CallbackUrlPolicy#strict()}. */
        public Builder callbacks(CallbackUrlPolicy value) { this.callbacks = value; return this; }
        /** Default the payload limit, {@value PayloadPolicy#DEFAULT_MAX_BYTES} bytes. */
        public Builder maxBodyBytes(int value) { this.maxBodyBytes = value; return this; }
        /** Default {@link DeliverySchedule#defaults()}. */
        public Builder delivery(DeliverySchedule value) { this.delivery = value; return this; }
        public Builder drain(DrainSettings value) { this.drain = value; return this; }

        public ShaperSettings build() {
            return new ShaperSettings(callbacks, maxBodyBytes, delivery, drain);
        }
    }
}
