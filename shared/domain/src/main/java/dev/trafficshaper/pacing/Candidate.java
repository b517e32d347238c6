package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.TokenUsage;
import java.util.Comparator;

/**
 * A queued request the pacer may admit: its expected usage (estimated input, {@code maxTokens} as
 * output), its lane and tenant, and the times that order it.
 */
public record Candidate(
        String requestId, Lane lane, String tenant, TokenUsage expected, long enqueuedAtMillis, long deadlineAtMillis) {

    /**
     * The order the pacer serves one tenant's requests in a lane: earliest deadline, then oldest,
     * then by id. A caller holding many heads of one tenant may pass only the first of them.
     */
    public static final Comparator<Candidate> WITHIN_TENANT = Comparator
            .comparingLong(Candidate::deadlineAtMillis)
            .thenComparingLong(Candidate::enqueuedAtMillis)
            .thenComparing(Candidate::requestId);

    public Candidate {
        if (requestId == null || lane == null || tenant == null || expected == null) {
            throw new IllegalArgumentException("requestId, lane, tenant and expected usage are required");
        }
    }
}
