package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.TokenUsage;

/**
 * A queued request the pacer may admit: its expected usage (estimated input, {@code maxTokens} as
 * output), its lane and tenant, and the times that order it.
 */
public record Candidate(
        String requestId, Lane lane, String tenant, TokenUsage expected, long enqueuedAtMillis, long deadlineAtMillis) {

    public Candidate {
        if (requestId == null || lane == null || tenant == null || expected == null) {
            throw new IllegalArgumentException("requestId, lane, tenant and expected usage are required");
        }
    }
}
