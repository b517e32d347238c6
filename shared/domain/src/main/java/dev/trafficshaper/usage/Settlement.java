package dev.trafficshaper.usage;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.Identifiers;
import java.util.Objects;

/**
 * What one completed request actually used and was charged against the quota.
 *
 * @param startedAtMillis when Bedrock was called (the request's {@code startedAtMillis}). Usage is
 *                        bucketed by it, as Bedrock charges at request start, and because it is
 *                        stored on the request, a retried settlement lands on the same key.
 */
public record Settlement(String modelKey, String requestId, String tenant, long startedAtMillis, TokenUsage usage,
                        Charge charge) {

    public Settlement {
        Identifiers.require("model", modelKey);
        Identifiers.require("requestId", requestId);
        Identifiers.requireTenant(tenant);
        Objects.requireNonNull(usage, "usage");
        Objects.requireNonNull(charge, "charge");
        if (startedAtMillis <= 0) {
            throw new IllegalArgumentException("startedAtMillis must be positive");
        }
    }
}
