package dev.trafficshaper.client;

/**
 * A call to the shaper failed: the transport failed (the cause is then an {@link java.io.IOException}),
 * the client was closed, or a subclass says what the API answered.
 */
public class ShaperException extends RuntimeException {

    public ShaperException(String message) {
        super(message);
    }

    public ShaperException(String message, Throwable cause) {
        super(message, cause);
    }
}
