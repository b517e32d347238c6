package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Admission;
import dev.trafficshaper.pacing.Candidate;
import dev.trafficshaper.pacing.Decision;
import dev.trafficshaper.pacing.Pacer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * This project's shaper: requests queue per lane and tenant, and the production {@link Pacer}
 * decides when each goes. Admitted requests are sent once, with no client retries; an unexpected
 * throttle goes back to the pacer (which lowers its target) and the request back to the head of its
 * queue; transient errors are re-queued up to {@link #MAX_REQUEUES} times.
 */
final class Shaper implements Strategy {

    static final int MAX_REQUEUES = 3;

    private final SimRun run;
    private final Pacer pacer;
    private final Map<String, ArrayDeque<SimRequest>> queues = new LinkedHashMap<>();
    private final Map<String, SimRequest> byId = new HashMap<>();
    private final Map<String, Integer> requeues = new HashMap<>();
    private long wakeAt = Long.MAX_VALUE;

    Shaper(SimRun run) {
        this.run = run;
        this.pacer = Pacer.create(run.scenario().quota(), run.scenario().shaper());
    }

    @Override
    public void arrive(SimRequest request) {
        byId.put(request.id(), request);
        enqueue(request, false);
        pump();
    }

    private void enqueue(SimRequest request, boolean atHead) {
        run.metrics().startedWaiting(run.now());
        ArrayDeque<SimRequest> queue = queues.computeIfAbsent(request.lane() + "/" + request.tenant(),
                k -> new ArrayDeque<>());
        if (atHead) {
            queue.addFirst(request);
        } else {
            queue.addLast(request);
        }
    }

    private void pump() {
        while (true) {
            List<Candidate> heads = new ArrayList<>(queues.size());
            for (ArrayDeque<SimRequest> queue : queues.values()) {
                if (!queue.isEmpty()) {
                    heads.add(candidate(queue.peekFirst()));
                }
            }
            Decision decision = pacer.decide(heads, run.now());
            if (decision instanceof Decision.Admit admit) {
                SimRequest request = byId.get(admit.candidate().requestId());
                queues.get(request.lane() + "/" + request.tenant()).pollFirst();
                Admission admission = admit.admission();
                run.sendFromWait(request, outcome -> completed(request, admission, outcome));
            } else if (decision instanceof Decision.WaitUntil wait) {
                if (wait.atMillis() < wakeAt || wakeAt <= run.now()) {
                    wakeAt = wait.atMillis();
                    run.loop().schedule(wakeAt, this::pump);
                }
                return;
            } else {
                return;
            }
        }
    }

    private Candidate candidate(SimRequest request) {
        long estimate = (long) Math.ceil(request.estimatedInputTokens() * (1 + run.scenario().inputEstimateMargin()));
        return new Candidate(request.id(), request.lane(), request.tenant(), TokenUsage.of(estimate, request.maxTokens()),
                request.arrivalMillis(), Long.MAX_VALUE);
    }

    private void completed(SimRequest request, Admission admission, CallOutcome outcome) {
        switch (outcome) {
            case SUCCEEDED -> {
                pacer.settle(admission, request.actualUsage(), run.now());
                run.finish(request, true);
            }
            case THROTTLED -> {
                pacer.throttled(admission, run.now());
                requeueOrFail(request);
            }
            case SERVER_ERROR -> {
                pacer.release(admission, run.now());
                requeueOrFail(request);
            }
            case TIMED_OUT -> {
                // The generation may have run; keep the whole reservation booked.
                pacer.settle(admission, admission.candidate().expected(), run.now());
                requeueOrFail(request);
            }
            default -> throw new IllegalStateException("unknown outcome " + outcome);
        }
        pump();
    }

    private void requeueOrFail(SimRequest request) {
        int count = requeues.merge(request.id(), 1, Integer::sum);
        if (count > MAX_REQUEUES) {
            run.finish(request, false);
            return;
        }
        run.metrics().requeued();
        enqueue(request, true);
    }
}
