package dev.trafficshaper.quota;

/** One metered dimension of a Bedrock model quota, each a per-minute budget. */
public enum QuotaDimension {
    /** Requests per minute (older models only). */
    REQUESTS,
    /** Tokens per minute: input + cache writes + cache reads at reservation, output × burndown. */
    TOKENS,
    /** Input tokens per minute, on endpoints that meter input separately. */
    INPUT_TOKENS,
    /** Output tokens per minute, on endpoints that meter output separately. */
    OUTPUT_TOKENS
}
