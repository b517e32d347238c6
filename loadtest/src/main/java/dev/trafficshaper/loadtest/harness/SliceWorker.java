package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.local.LocalClock;
import java.util.List;

/**
 * Plays one worker's slice of the schedule open loop: it sleeps until each request's arrival
 * instant and hands the request to every arm, which sends it without waiting for the answer, so
 * a slow or throttling endpoint never delays the next arrival. The arms take turns going first
 * (rotated by index), so no arm is systematically a few microseconds ahead.
 *
 * <p>The same class runs in a thread for {@code run --local} and in a Lambda function on AWS.
 * {@code stopAtMillis} bounds the whole slice: arrivals past it are not sent, and requests still
 * in flight at it are left without an outcome here — the report counts them as lost.
 */
public final class SliceWorker {

    /**
     * @param sent         requests handed to the arms (each arm sends each of them)
     * @param maxLagMillis the latest any request left after its arrival instant
     * @param skipped      requests not sent because the stop time had come
     * @param unfinished   requests (over all arms) still waiting for an answer at the stop time
     */
    public record Result(int worker, int sent, long maxLagMillis, int skipped, int unfinished) {
    }

    private SliceWorker() {
    }

    public static Result play(int worker, List<ScheduledRequest> slice, List<ArmDriver> arms, LocalClock clock,
                              long startEpochMillis, long stopAtMillis) throws InterruptedException {
        int sent = 0;
        long maxLag = 0;
        for (ScheduledRequest request : slice) {
            long due = startEpochMillis + request.arrivalMillis();
            if (due >= stopAtMillis) {
                break;
            }
            clock.sleepUntil(due);
            if (Thread.interrupted()) {
                throw new InterruptedException("worker " + worker + " stopped");
            }
            for (int i = 0; i < arms.size(); i++) {
                arms.get((request.index() + i) % arms.size()).send(request, due);
            }
            maxLag = Math.max(maxLag, clock.nowMillis() - due);
            sent++;
        }
        int unfinished = 0;
        for (ArmDriver arm : arms) {
            unfinished += arm.awaitIdle(stopAtMillis);
        }
        return new Result(worker, sent, maxLag, slice.size() - sent, unfinished);
    }
}
