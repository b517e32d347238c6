package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;
import dev.trafficshaper.pacing.Lane;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The clairvoyant oracle: the physical limit a client could reach against this meter and workload.
 *
 * <p>Why: a pacer's drain time means little alone; what it costs is the gap to the fastest drain
 * the provider's meter allows. The oracle reads the meter itself (no real client can): it sends
 * each request the moment the very meter it faces would accept its true reservation within the
 * quota, counting the meter's own regeneration (bucket refill, window expiry, the next clock
 * minute, the short-horizon limit when one is on) and every refund as it is booked. So it spends a
 * full bucket or an empty window at once at the start of a burst, and under a deterministic meter
 * (strict leniency) it is never throttled.
 *
 * <p>Order: arrival order within a lane, the interactive lane first; the head of the queue waits
 * for its fit (no overtaking), so the oracle is a greedy work-conserving FIFO sender, not a bin
 * packer. A call that fails transiently (5xx, timeout) goes back to the head of its lane, up to
 * {@value #MAX_ATTEMPTS} calls; a request that can never fit (larger than the quota) fails at once.
 *
 * <p>Load states: idle (nothing queued, nothing scheduled); sending (the head fits now, so it is
 * sent and the next head is tried at the same instant); waiting (the head fits at a known future
 * time, or after a refund: one wake-up is scheduled at the earliest of the two).
 */
final class Oracle implements Strategy {

    static final int MAX_ATTEMPTS = 10;

    private final SimRun run;
    private final Map<Lane, ArrayDeque<SimRequest>> lanes = new EnumMap<>(Lane.class);
    private final Map<String, Integer> attempts = new HashMap<>();
    private long wakeAt = Long.MAX_VALUE;

    Oracle(SimRun run) {
        this.run = run;
        for (Lane lane : Lane.values()) {
            lanes.put(lane, new ArrayDeque<>());
        }
        run.onSettlement(() -> wake(run.now()));
    }

    @Override
    public void arrive(SimRequest request) {
        run.metrics().startedWaiting(run.now());
        lanes.get(request.lane()).addLast(request);
        pump();
    }

    private void pump() {
        ArrayDeque<SimRequest> lane;
        while ((lane = nextLane()) != null) {
            SimRequest head = lane.peekFirst();
            long at = run.earliestAdmission(head);
            if (at == Long.MAX_VALUE) {
                lane.pollFirst();
                run.metrics().stoppedWaiting(run.now());
                run.finish(head, false);
                continue;
            }
            if (at > run.now()) {
                wake(at);
                return;
            }
            lane.pollFirst();
            run.sendFromWait(head, outcome -> ended(head, outcome));
        }
    }

    private ArrayDeque<SimRequest> nextLane() {
        for (Lane lane : Lane.values()) {
            if (!lanes.get(lane).isEmpty()) {
                return lanes.get(lane);
            }
        }
        return null;
    }

    private void ended(SimRequest request, CallOutcome outcome) {
        int calls = attempts.merge(request.id(), 1, Integer::sum);
        if (outcome == CallOutcome.SUCCEEDED || calls >= MAX_ATTEMPTS) {
            attempts.remove(request.id());
            run.finish(request, outcome == CallOutcome.SUCCEEDED);
            return;
        }
        if (outcome != CallOutcome.THROTTLED) {
            run.metrics().requeued();
        }
        run.metrics().startedWaiting(run.now());
        lanes.get(request.lane()).addFirst(request);
        pump();
    }

    /** At most one pending wake-up, always the earliest asked for. */
    private void wake(long atMillis) {
        if (atMillis >= wakeAt) {
            return;
        }
        wakeAt = atMillis;
        run.loop().schedule(atMillis, () -> {
            if (wakeAt == atMillis) {
                wakeAt = Long.MAX_VALUE;
                pump();
            }
        });
    }
}
