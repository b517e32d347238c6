package dev.trafficshaper.payload;

import java.util.Optional;

/**
 * Request and result bodies, stored by reference. Writes are idempotent: the same request, kind
 * and content always land on the same key, so a retried write cannot duplicate or replace a body.
 */
public interface PayloadStore {

    /**
     * Stores {@code payload} until {@code expiresAtMillis} and returns its reference.
     *
     * @throws InvalidPayloadException when the body is over the policy's limit; nothing is written
     */
    PayloadRef put(String requestId, PayloadKind kind, Payload payload, long expiresAtMillis);

    /** The body {@code ref} points at, absent once it has expired or if it was never stored. */
    Optional<Payload> get(PayloadRef ref, long nowMillis);
}
