package dev.trafficshaper.payload;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Bodies in a map; places them INLINE or OBJECT by the same policy as the DynamoDB store. */
public final class InMemoryPayloadStore implements PayloadStore {

    private final PayloadPolicy policy;
    private final Map<String, Payload> bodies = new ConcurrentHashMap<>();

    private InMemoryPayloadStore(PayloadPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    public static InMemoryPayloadStore create() {
        return new InMemoryPayloadStore(PayloadPolicy.defaults());
    }

    public static InMemoryPayloadStore create(PayloadPolicy policy) {
        return new InMemoryPayloadStore(policy);
    }

    @Override
    public PayloadRef put(String requestId, PayloadKind kind, Payload payload, long expiresAtMillis) {
        PayloadRef ref = policy.place(requestId, kind, payload, expiresAtMillis);
        bodies.putIfAbsent(ref.key(), payload);
        return ref;
    }

    @Override
    public Optional<Payload> get(PayloadRef ref, long nowMillis) {
        if (ref.expiresAtMillis() <= nowMillis) {
            return Optional.empty();
        }
        return Optional.ofNullable(bodies.get(ref.key()));
    }
}
