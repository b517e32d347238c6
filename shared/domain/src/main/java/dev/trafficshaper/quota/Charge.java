package dev.trafficshaper.quota;

/**
 * What one request costs in each quota dimension. Reservations and settlements are both charges;
 * a refund is the difference between them.
 */
public record Charge(long requests, long tokens, long inputTokens, long outputTokens) {

    public static final Charge NONE = new Charge(0, 0, 0, 0);

    /**
     * What Bedrock reserves when the request starts: input, cache writes and cache reads, plus the
     * whole {@code maxTokens} allowance times the burndown. On a quota with
     * {@link Quota#outputAllowanceOnInput()} (bedrock-mantle) the allowance is also held on the
     * input dimension, which that endpoint checks with input + {@code max_tokens}.
     */
    public static Charge reservation(Quota quota, TokenUsage expected) {
        long input = Math.addExact(expected.inputTokens(),
                Math.addExact(expected.cacheWriteTokens(), expected.cacheReadTokens()));
        long output = expected.outputTokens();
        long inputDimension = quota.outputAllowanceOnInput() ? Math.addExact(input, output) : input;
        return new Charge(1, Math.addExact(input, Math.multiplyExact(output, quota.outputBurndown())), inputDimension,
                output);
    }

    /** What the request finally costs: cache reads are released, output is charged as generated. */
    public static Charge settlement(Quota quota, TokenUsage actual) {
        long input = Math.addExact(actual.inputTokens(), actual.cacheWriteTokens());
        long output = actual.outputTokens();
        return new Charge(1, Math.addExact(input, Math.multiplyExact(output, quota.outputBurndown())), input, output);
    }

    public long amount(QuotaDimension dimension) {
        return switch (dimension) {
            case REQUESTS -> requests;
            case TOKENS -> tokens;
            case INPUT_TOKENS -> inputTokens;
            case OUTPUT_TOKENS -> outputTokens;
        };
    }

    public Charge minus(Charge other) {
        return new Charge(requests - other.requests, tokens - other.tokens,
                inputTokens - other.inputTokens, outputTokens - other.outputTokens);
    }
}
