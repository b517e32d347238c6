package dev.trafficshaper.loadtest.demo;

/** The three ways the demo sends the same burst to Bedrock. */
public enum Arm {
    /** The real SDK client with retries off, straight to Bedrock: a throttle is a lost request. */
    DIRECT_NO_RETRY("direct, no retry", "direct-no-retry"),
    /** The real SDK client with the seed experiment's policy: 4 attempts, full jitter 1/2/4 s, on 429 only. */
    DIRECT_RETRY_JITTER("direct, retry + jitter", "direct-retry-jitter"),
    /** Submitted to the shaper's HTTP API with the Java client, then awaited. */
    SHAPER("shaper", "shaper");

    private final String label;
    private final String key;

    Arm(String label, String key) {
        this.label = label;
        this.key = key;
    }

    /** How the table and the chart name the arm. */
    public String label() {
        return label;
    }

    /** The arm's name in {@code result.json}, in the simulator's strategy naming. */
    public String key() {
        return key;
    }
}
