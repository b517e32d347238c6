package dev.trafficshaper.infra.config;

/** A deployment setting or file that cannot produce a working stack; the message says what to fix. */
public final class InvalidDeploymentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InvalidDeploymentException(String message) {
        super(message);
    }

    public InvalidDeploymentException(String message, Throwable cause) {
        super(message, cause);
    }
}
