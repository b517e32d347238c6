package dev.trafficshaper.functions;

import java.util.Map;
import java.util.Optional;

/**
 * The functions' configuration, read from the environment the CDK app sets (see
 * {@code infra/.../compute/ShaperFunctions}). Missing required values fail the first invocation
 * with the variable's name, not a null pointer somewhere later.
 */
public record ShaperEnvironment(Map<String, String> variables) {

    public static ShaperEnvironment system() {
        return new ShaperEnvironment(System.getenv());
    }

    public String require(String name) {
        String value = variables.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " is required");
        }
        return value;
    }

    public Optional<String> optional(String name) {
        String value = variables.get(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }
}
