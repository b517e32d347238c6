package dev.trafficshaper.simulator.bedrock;

/** A request the simulator answers with a Bedrock error instead of a result. */
public final class BedrockFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient BedrockError error;

    public BedrockFailure(BedrockError error, String message) {
        super(message, null, false, false);
        this.error = error;
    }

    public BedrockError error() {
        return error;
    }

    static BedrockFailure validation(String message) {
        return new BedrockFailure(BedrockError.VALIDATION, message);
    }
}
