package dev.trafficshaper.payload;

/** A body that cannot be stored: not JSON, not an object, or larger than the limit. Nothing was written. */
public final class InvalidPayloadException extends IllegalArgumentException {

    public InvalidPayloadException(String message) {
        super(message);
    }
}
