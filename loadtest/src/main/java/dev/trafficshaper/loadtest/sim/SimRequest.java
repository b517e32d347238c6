package dev.trafficshaper.loadtest.sim;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;

/**
 * One request of a simulated workload.
 *
 * @param trueInputTokens      what Bedrock counts and reserves
 * @param estimatedInputTokens what a client-side estimator believes (differs by the estimation error)
 * @param maxTokens            the output allowance reserved at start
 * @param outputTokens         what the model will actually generate (at most maxTokens)
 * @param client               which client instance sends it (for per-client strategies)
 */
public record SimRequest(
        int index,
        String id,
        long arrivalMillis,
        Lane lane,
        String tenant,
        long trueInputTokens,
        long estimatedInputTokens,
        long maxTokens,
        long outputTokens,
        int client) {

    /** What Bedrock reserves for this request. */
    public TokenUsage trueReservation() {
        return TokenUsage.of(trueInputTokens, maxTokens);
    }

    /** What a client that estimates input reserves for it. */
    public TokenUsage estimatedReservation() {
        return TokenUsage.of(estimatedInputTokens, maxTokens);
    }

    /** What the request really uses once it has run. */
    public TokenUsage actualUsage() {
        return TokenUsage.of(trueInputTokens, outputTokens);
    }
}
