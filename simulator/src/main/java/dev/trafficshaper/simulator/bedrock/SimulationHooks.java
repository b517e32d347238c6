package dev.trafficshaper.simulator.bedrock;

import com.sun.net.httpserver.Headers;

/**
 * Per-request overrides a test or load generator sends as headers, so a small body can stand for a
 * large prompt and one request can be made to fail in a chosen way. Real Bedrock ignores unknown
 * headers, so a client that sends them still works against the real service.
 *
 * @param inputTokens      simulated input size replacing the counted one, or -1
 * @param outputTokens     output length to generate (capped at maxTokens), or -1 for the default
 * @param cacheReadTokens  prompt-cache reads to report in addition to the input
 * @param cacheWriteTokens prompt-cache writes to report in addition to the input
 * @param fault            the error this request must fail with, or null
 */
public record SimulationHooks(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens,
                              BedrockError fault) {

    public static final String INPUT_TOKENS = "x-sim-input-tokens";
    public static final String OUTPUT_TOKENS = "x-sim-output-tokens";
    public static final String CACHE_READ_TOKENS = "x-sim-cache-read-tokens";
    public static final String CACHE_WRITE_TOKENS = "x-sim-cache-write-tokens";
    public static final String FAULT = "x-sim-fault";

    public static final SimulationHooks NONE = new SimulationHooks(-1, -1, 0, 0, null);

    static SimulationHooks from(Headers headers) {
        String fault = headers.getFirst(FAULT);
        try {
            return new SimulationHooks(
                    number(headers, INPUT_TOKENS, -1),
                    number(headers, OUTPUT_TOKENS, -1),
                    number(headers, CACHE_READ_TOKENS, 0),
                    number(headers, CACHE_WRITE_TOKENS, 0),
                    fault == null || fault.isBlank() ? null : BedrockError.fromCode(fault));
        } catch (IllegalArgumentException e) {
            throw BedrockFailure.validation("simulator hook: " + e.getMessage());
        }
    }

    long inputTokensOr(long counted) {
        return inputTokens >= 0 ? inputTokens : counted;
    }

    private static long number(Headers headers, String name, long absent) {
        String value = headers.getFirst(name);
        if (value == null || value.isBlank()) {
            return absent;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, was '" + value + "'");
        }
        if (parsed < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + parsed);
        }
        return parsed;
    }
}
