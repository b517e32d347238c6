package dev.trafficshaper.quota;

/**
 * Tokens a request used or is expected to use. For an estimate, {@code outputTokens} is the
 * request's {@code maxTokens}: Bedrock reserves the full output allowance at admission.
 */
public record TokenUsage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {

    public TokenUsage {
        if (inputTokens < 0 || outputTokens < 0 || cacheReadTokens < 0 || cacheWriteTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
    }

    public static TokenUsage of(long inputTokens, long outputTokens) {
        return new TokenUsage(inputTokens, outputTokens, 0, 0);
    }
}
