package dev.trafficshaper.request;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Optional;

/**
 * A request store that passes every call to another, for tests that change one call of a real
 * store (a read that fails, a poll counted) and keep the rest: a subclass overrides that call only,
 * and a method the port gains is passed through here once rather than in each test's fake.
 *
 * <p>{@link #findAll} is the port's own, through {@link #find}: a subclass that changes {@code find}
 * changes both reads. One that counts or changes the batched read overrides {@code findAll} and
 * passes it on with {@link #delegate()}.
 */
public class DelegatingRequestStore implements RequestStore {

    private final RequestStore delegate;

    public DelegatingRequestStore(RequestStore delegate) {
        this.delegate = delegate;
    }

    /**
     * {@code records} as a previous writer left them, served by {@link #find} as they are (no
     * retention applied); every other call fails the test, for code that is expected only to read.
     */
    public static RequestStore readOnly(Map<String, RequestRecord> records) {
        return new DelegatingRequestStore(refusing()) {
            @Override
            public Optional<RequestRecord> find(String requestId, long nowMillis) {
                return Optional.ofNullable(records.get(requestId));
            }
        };
    }

    /** The store each call is passed to. */
    protected final RequestStore delegate() {
        return delegate;
    }

    @Override
    public Optional<RequestRecord> find(String requestId, long nowMillis) {
        return delegate.find(requestId, nowMillis);
    }

    @Override
    public Optional<String> taskToken(String requestId, long nowMillis) {
        return delegate.taskToken(requestId, nowMillis);
    }

    @Override
    public TransitionResult replaceTaskToken(String requestId, String taskToken, long nowMillis) {
        return delegate.replaceTaskToken(requestId, taskToken, nowMillis);
    }

    @Override
    public TransitionResult transition(String requestId, RequestEvent event, long nowMillis) {
        return delegate.transition(requestId, event, nowMillis);
    }

    @Override
    public TransitionResult recordDelivery(String requestId, DeliveryState delivery, long nowMillis) {
        return delegate.recordDelivery(requestId, delivery, nowMillis);
    }

    @Override
    public TransitionResult recordHandoff(String requestId, boolean webhookQueued, long nowMillis) {
        return delegate.recordHandoff(requestId, webhookQueued, nowMillis);
    }

    /** A store no call is expected of: each, whatever the port holds then, fails the test. */
    private static RequestStore refusing() {
        return (RequestStore) Proxy.newProxyInstance(RequestStore.class.getClassLoader(),
                new Class<?>[] {RequestStore.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException("no " + method.getName() + " expected of this store");
                });
    }
}
