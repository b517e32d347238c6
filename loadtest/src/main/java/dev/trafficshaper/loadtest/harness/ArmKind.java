package dev.trafficshaper.loadtest.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The ways a load test sends the same schedule to Bedrock, each with its own request ids. Every arm
 * names the simulator strategy that predicts it, so a report can put the prediction beside the
 * measurement.
 */
public enum ArmKind {
    /** The AWS SDK with retries off, straight to Bedrock: a throttle is a lost request. */
    DIRECT("direct", "direct-no-retry"),
    /** The seed experiment's policy: 4 attempts, full jitter with 1, 2 and 4 s ceilings, on 429 only. */
    RETRY_JITTER("retry-jitter", "direct-retry-jitter"),
    /** The SDK's adaptive retry mode: a client-side rate limiter per client and standard retries. */
    SDK_ADAPTIVE("sdk-adaptive", "sdk-adaptive"),
    /** The shaper's API through the Java client; the result comes back by webhook or outcome event. */
    SHAPER("shaper", "shaper");

    private final String wireName;
    private final String simulatedStrategy;

    ArmKind(String wireName, String simulatedStrategy) {
        this.wireName = wireName;
        this.simulatedStrategy = simulatedStrategy;
    }

    /** The arm's name on the command line, in outcome lines and in request ids. */
    public String wireName() {
        return wireName;
    }

    /** The {@code simulate} strategy that models this arm. */
    public String simulatedStrategy() {
        return simulatedStrategy;
    }

    public boolean callsBedrockDirectly() {
        return this != SHAPER;
    }

    public static ArmKind fromWireName(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (ArmKind arm : values()) {
            if (arm.wireName.equals(wanted)) {
                return arm;
            }
        }
        throw new IllegalArgumentException("unknown arm '" + name + "'; known: " + String.join(", ", wireNames()));
    }

    /** The arms named, in the order given, each once. */
    public static List<ArmKind> parse(List<String> names) {
        List<ArmKind> arms = new ArrayList<>();
        for (String name : names) {
            ArmKind arm = fromWireName(name);
            if (arms.contains(arm)) {
                throw new IllegalArgumentException("arm '" + arm.wireName + "' is named twice");
            }
            arms.add(arm);
        }
        if (arms.isEmpty()) {
            throw new IllegalArgumentException("name at least one arm: " + String.join(", ", wireNames()));
        }
        return List.copyOf(arms);
    }

    public static List<String> wireNames() {
        List<String> names = new ArrayList<>();
        for (ArmKind arm : values()) {
            names.add(arm.wireName);
        }
        return names;
    }
}
