package dev.trafficshaper.submission;

/** A submission that is not declared as JSON; reported as {@code 415}, nothing stored. */
public final class UnsupportedContentTypeException extends RuntimeException {

    public UnsupportedContentTypeException(String message) {
        super(message);
    }
}
