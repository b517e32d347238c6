package dev.trafficshaper.simulator.bedrock;

/**
 * A simulated generation: the usage Bedrock would report, the text or tool call, and how long it
 * took.
 *
 * @param inputTokens input read fresh (not from the prompt cache)
 * @param stopReason  {@code end_turn}, {@code max_tokens} when the output was cut at maxTokens,
 *                    or {@code tool_use} when the model calls a tool
 * @param toolCall    the tool call, or null for a text answer
 */
record Completion(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens, String text,
                  String stopReason, long latencyMillis, ToolCall toolCall) {

    static final String END_TURN = "end_turn";
    static final String MAX_TOKENS = "max_tokens";
    static final String TOOL_USE = "tool_use";

    boolean truncated() {
        return MAX_TOKENS.equals(stopReason);
    }

    boolean callsTool() {
        return toolCall != null;
    }

    long totalTokens() {
        return inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens;
    }
}
