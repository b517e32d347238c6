package dev.trafficshaper.simulator.bedrock;

/**
 * A simulated generation: the usage Bedrock would report, the text, and how long it took.
 *
 * @param stopReason  {@code end_turn}, or {@code max_tokens} when the output was cut at maxTokens
 */
record Completion(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens, String text,
                  String stopReason, long latencyMillis) {

    static final String END_TURN = "end_turn";
    static final String MAX_TOKENS = "max_tokens";

    boolean truncated() {
        return MAX_TOKENS.equals(stopReason);
    }

    long totalTokens() {
        return inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens;
    }
}
