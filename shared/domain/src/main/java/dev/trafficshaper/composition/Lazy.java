package dev.trafficshaper.composition;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A value made on first use and then kept. A Lambda function builds only the clients and
 * services its handler asks for, which keeps cold starts short; a factory that throws (a missing
 * environment variable, say) keeps nothing, so the next use tries again and fails the same way.
 *
 * @param <T> the value
 */
public final class Lazy<T> implements Supplier<T> {

    private final Supplier<? extends T> factory;
    private volatile T value;

    private Lazy(Supplier<? extends T> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** {@code factory} itself when it is already a {@code Lazy}. */
    @SuppressWarnings("unchecked")
    public static <T> Lazy<T> of(Supplier<? extends T> factory) {
        return factory instanceof Lazy<?> lazy ? (Lazy<T>) lazy : new Lazy<>(factory);
    }

    @Override
    public T get() {
        T made = value;
        if (made == null) {
            synchronized (this) {
                made = value;
                if (made == null) {
                    made = Objects.requireNonNull(factory.get(), "a lazy value's factory returned null");
                    value = made;
                }
            }
        }
        return made;
    }
}
