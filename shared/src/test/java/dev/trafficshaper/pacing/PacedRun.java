package dev.trafficshaper.pacing;

import dev.trafficshaper.model.Charge;
import dev.trafficshaper.model.TokenUsage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/** A small fake-clock drain loop for pacer tests: arrivals, admissions, settlements after latency. */
final class PacedRun {

    record Request(Candidate candidate, long arrivalMillis, TokenUsage actual, long latencyMillis) {
    }

    record Admitted(Request request, long atMillis, Charge reservation, Charge settled) {
    }

    private record Completion(long atMillis, Admission admission, Request request) {
    }

    static List<Admitted> run(Pacer pacer, List<Request> requests) {
        List<Request> arrivals = new ArrayList<>(requests);
        arrivals.sort(Comparator.comparingLong(Request::arrivalMillis));
        PriorityQueue<Completion> completions = new PriorityQueue<>(Comparator.comparingLong(Completion::atMillis));
        Map<String, Request> byId = new LinkedHashMap<>();
        List<Request> waiting = new ArrayList<>();
        List<Admitted> admitted = new ArrayList<>();
        int next = 0;
        long now = arrivals.isEmpty() ? 0 : arrivals.get(0).arrivalMillis();
        long wake = now;
        while (next < arrivals.size() || !waiting.isEmpty() || !completions.isEmpty()) {
            while (next < arrivals.size() && arrivals.get(next).arrivalMillis() <= now) {
                Request r = arrivals.get(next++);
                waiting.add(r);
                byId.put(r.candidate().requestId(), r);
            }
            while (!completions.isEmpty() && completions.peek().atMillis() <= now) {
                Completion c = completions.poll();
                pacer.settle(c.admission(), c.request().actual(), now);
            }
            if (!waiting.isEmpty() && wake <= now) {
                Decision decision = pacer.decide(heads(waiting), now);
                if (decision instanceof Decision.Admit admit) {
                    Request r = byId.get(admit.candidate().requestId());
                    waiting.remove(r);
                    admitted.add(new Admitted(r, now, admit.admission().reservation(),
                            Charge.settlement(pacer.quota(), r.actual())));
                    completions.add(new Completion(now + r.latencyMillis(), admit.admission(), r));
                    continue;
                }
                wake = ((Decision.WaitUntil) decision).atMillis();
            }
            long upcoming = Long.MAX_VALUE;
            if (next < arrivals.size()) {
                upcoming = arrivals.get(next).arrivalMillis();
            }
            if (!completions.isEmpty()) {
                upcoming = Math.min(upcoming, completions.peek().atMillis());
            }
            if (!waiting.isEmpty()) {
                upcoming = Math.min(upcoming, Math.max(wake, now));
            }
            if (upcoming <= now && !waiting.isEmpty() && wake <= now) {
                continue;
            }
            now = Math.max(now, upcoming);
            wake = Math.min(wake, now);
        }
        return admitted;
    }

    /** The oldest waiting request of each lane and tenant, as a queue reader would show them. */
    private static List<Candidate> heads(List<Request> waiting) {
        Map<String, Candidate> heads = new LinkedHashMap<>();
        for (Request r : waiting) {
            heads.putIfAbsent(r.candidate().lane() + "/" + r.candidate().tenant(), r.candidate());
        }
        return new ArrayList<>(heads.values());
    }

    private PacedRun() {
    }
}
