package dev.trafficshaper.lifecycle;

import java.util.List;

/**
 * What a drainer remembers of transient failures ({@link TransientBackoff}), handed to its
 * successor with the pacer's state so a handoff in the middle of an outage does not end it.
 *
 * <p>Why: the outage is the drainer's memory, not the queue's. A successor that started without
 * it would admit at the pacer's full rate into a Bedrock that has answered nothing for seconds,
 * and every one of those calls would come back; one that knows keeps sending one probe at a time,
 * on the outage's own backoff, until a probe is answered. The requests still waiting out their own
 * backoff at capture are carried too, at most {@value #MAX_WAITING} of them (those waiting
 * longest), so the successor does not offer them again at once.
 *
 * <p>Age does not end an outage: a state read long after its capture still starts in the outage,
 * and its first probe goes at once (its time has passed); one answered probe ends it. That costs one
 * call's latency when the outage ended meanwhile, against a full rate of failures when it did not.
 *
 * @param transientRun      transient returns in a row, with no call Bedrock answered between them
 * @param outage            whether admission was paused for an outage
 * @param outageProbes      probes that came back transient since the outage began
 * @param nextProbeAtMillis when the next probe may go, or {@link #NEVER} outside an outage
 * @param waiting           requests still backing off at capture, by the end of their wait
 */
public record BackoffState(int transientRun, boolean outage, int outageProbes, long nextProbeAtMillis,
                           List<Waiting> waiting) {

    /** Marks a time for something that has not happened. */
    public static final long NEVER = Long.MIN_VALUE;

    /** Most requests whose own backoff is carried. */
    public static final int MAX_WAITING = 16;

    /** Nothing remembered: what a first drainer, or an older state, starts from. */
    public static final BackoffState NONE = new BackoffState(0, false, 0, NEVER, List.of());

    /**
     * A request backing off at capture.
     *
     * @param requestId       the request
     * @param failures        its transient returns in a row
     * @param notBeforeMillis when it may be offered to the pacer again
     */
    public record Waiting(String requestId, int failures, long notBeforeMillis) {

        public Waiting {
            if (requestId == null || requestId.isEmpty()) {
                throw new IllegalArgumentException("a waiting request needs its id");
            }
            if (failures < 1) {
                throw new IllegalArgumentException("a waiting request has failed at least once, was " + failures);
            }
        }
    }

    public BackoffState {
        if (transientRun < 0 || outageProbes < 0) {
            throw new IllegalArgumentException("transientRun and outageProbes must not be negative");
        }
        if (outage == (nextProbeAtMillis == NEVER)) {
            throw new IllegalArgumentException("nextProbeAtMillis is set exactly in an outage");
        }
        waiting = waiting == null ? List.of() : List.copyOf(waiting);
        if (waiting.size() > MAX_WAITING) {
            throw new IllegalArgumentException("at most " + MAX_WAITING + " waiting requests, was " + waiting.size());
        }
    }

    /** Whether there is anything for a successor to resume. */
    public boolean remembersNothing() {
        return equals(NONE);
    }
}
