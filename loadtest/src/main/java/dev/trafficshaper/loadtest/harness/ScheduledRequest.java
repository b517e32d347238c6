package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.pacing.Lane;

/**
 * One arrival of a schedule, the same for every arm.
 *
 * @param index         position in the schedule, the last part of every arm's request id
 * @param arrivalMillis when it arrives, in milliseconds after the run's start
 * @param inputTokens   the prompt's size as the simulator counts it
 * @param outputTokens  what the scenario draws for its answer (the simulator generates its default)
 * @param maxTokens     the output allowance the request asks for
 */
public record ScheduledRequest(int index, long arrivalMillis, long inputTokens, long outputTokens, long maxTokens,
                               Lane lane) {

    public ScheduledRequest {
        if (index < 0 || arrivalMillis < 0 || inputTokens < 1 || outputTokens < 0 || maxTokens < 1 || lane == null) {
            throw new IllegalArgumentException("invalid scheduled request " + index);
        }
    }

    static ScheduledRequest from(SimRequest request) {
        return new ScheduledRequest(request.index(), request.arrivalMillis(), request.trueInputTokens(),
                request.outputTokens(), request.maxTokens(), request.lane());
    }
}
