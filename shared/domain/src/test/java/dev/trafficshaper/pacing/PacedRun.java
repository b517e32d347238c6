package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A small fake-clock drain loop for pacer tests: arrivals, admissions, settlements after latency,
 * and optionally handoffs to successor pacers.
 */
final class PacedRun {

    record Request(Candidate candidate, long arrivalMillis, TokenUsage actual, long latencyMillis) {
    }

    record Admitted(Request request, long atMillis, Charge reservation, Charge settled) {
    }

    /**
     * The drainer exports its pacer at {@code atMillis} and a successor resumes from that state
     * {@code gapMillis} later; nothing is admitted in between, and a handoff due before the previous
     * successor started waits for it. Admissions still open complete and are settled on the pacer
     * that made them, as a predecessor finishing its in-flight calls would.
     */
    record Handoff(long atMillis, long gapMillis) {
    }

    private record Completion(long atMillis, Pacer pacer, Admission admission, Request request) {
    }

    static List<Admitted> run(Pacer pacer, List<Request> requests) {
        return run(pacer, requests, List.of());
    }

    static List<Admitted> run(Pacer first, List<Request> requests, List<Handoff> handoffs) {
        List<Request> arrivals = new ArrayList<>(requests);
        arrivals.sort(Comparator.comparingLong(Request::arrivalMillis));
        List<Handoff> schedule = new ArrayList<>(handoffs);
        schedule.sort(Comparator.comparingLong(Handoff::atMillis));
        PriorityQueue<Completion> completions = new PriorityQueue<>(Comparator.comparingLong(Completion::atMillis));
        Map<String, Request> byId = new LinkedHashMap<>();
        List<Request> waiting = new ArrayList<>();
        List<Admitted> admitted = new ArrayList<>();
        Pacer pacer = first;
        int nextHandoff = 0;
        long resumedAt = Long.MIN_VALUE;
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
                c.pacer().settle(c.admission(), c.request().actual(), now);
            }
            if (nextHandoff < schedule.size() && schedule.get(nextHandoff).atMillis() <= now && resumedAt <= now) {
                PacerState state = pacer.export(now);
                resumedAt = now + schedule.get(nextHandoff++).gapMillis();
                pacer = Pacer.resume(pacer.quota(), pacer.settings(), state, resumedAt);
                wake = resumedAt;
            }
            if (!waiting.isEmpty() && wake <= now && resumedAt <= now) {
                Decision decision = pacer.decide(heads(waiting), now);
                if (decision instanceof Decision.Admit admit) {
                    Request r = byId.get(admit.candidate().requestId());
                    waiting.remove(r);
                    admitted.add(new Admitted(r, now, admit.admission().reservation(),
                            Charge.settlement(pacer.quota(), r.actual())));
                    completions.add(new Completion(now + r.latencyMillis(), pacer, admit.admission(), r));
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
                upcoming = Math.min(upcoming, Math.max(Math.max(wake, resumedAt), now));
            }
            if (nextHandoff < schedule.size()) {
                upcoming = Math.min(upcoming, Math.max(Math.max(schedule.get(nextHandoff).atMillis(), resumedAt), now));
            }
            if (upcoming <= now && !waiting.isEmpty() && wake <= now && resumedAt <= now) {
                continue;
            }
            now = Math.max(now, upcoming);
            wake = Math.min(wake, Math.max(now, resumedAt));
        }
        return admitted;
    }

    /**
     * Asserts that no 60 s window holds more net charge than {@code target × quota} on any limited
     * dimension. A window holding a single admission is exempt: a request larger than the limit on
     * its own is admitted once the window is empty.
     */
    static void assertNoWindowAboveTarget(List<Admitted> admitted, Pacer pacer, double target) {
        for (QuotaDimension dimension : QuotaDimension.values()) {
            long quota = pacer.quota().limit(dimension);
            if (quota == 0) {
                continue;
            }
            long limit = (long) Math.floor(target * quota);
            for (Admitted end : admitted) {
                long sum = 0;
                int count = 0;
                for (Admitted a : admitted) {
                    if (a.atMillis() > end.atMillis() - 60_000 && a.atMillis() <= end.atMillis()) {
                        sum += a.settled().amount(dimension);
                        count++;
                    }
                }
                if (count > 1) {
                    assertThat(sum).as("net %s in the 60 s ending at %d", dimension, end.atMillis())
                            .isLessThanOrEqualTo(limit);
                }
            }
        }
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
