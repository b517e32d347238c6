package dev.trafficshaper.lease;

import dev.trafficshaper.request.Identifiers;
import java.util.Objects;

/**
 * The right to drain one model's queue until {@code expiresAtMillis}. {@code fencingToken} grows
 * by one with every acquisition, so a write carrying an older token can be told apart from the
 * current holder's and refused.
 */
public record Lease(String modelKey, String owner, long fencingToken, long expiresAtMillis) {

    public Lease {
        Identifiers.require("model", modelKey);
        Objects.requireNonNull(owner, "owner");
        if (owner.isBlank()) {
            throw new IllegalArgumentException("owner: required");
        }
        if (fencingToken < 1) {
            throw new IllegalArgumentException("fencingToken must be positive");
        }
    }

    public boolean isActive(long nowMillis) {
        return expiresAtMillis > nowMillis;
    }
}
