package dev.trafficshaper.lifecycle;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.RequestRecord;

/**
 * What the services report as it happens, for dashboards and alarms. Every method has a no-op
 * default, so an adapter implements only what its backend records (EMF metrics on AWS).
 */
public interface ShaperMetrics {

    ShaperMetrics NONE = new ShaperMetrics() {
    };

    /** A request left the queue after {@code waitMillis}, reserving {@code reservedTokens}. */
    default void admitted(String modelKey, long waitMillis, long reservedTokens) {
    }

    default void queueDepth(String modelKey, long depth) {
    }

    /** Bedrock throttled a request the pacer had admitted. */
    default void throttled(String modelKey) {
    }

    /** A request went back to the queue after a throttle or a transient failure. */
    default void requeued(String modelKey) {
    }

    /** An admission was too old to start when its processor picked it up and went back to the queue. */
    default void staleAdmission(String modelKey) {
    }

    default void settled(String modelKey, TokenUsage actual) {
    }

    /** A request reached its terminal state. */
    default void outcome(RequestRecord terminal) {
    }
}
