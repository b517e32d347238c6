package dev.trafficshaper.testing.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one chaos run did to each of its requests, and the verdict on every one of them.
 *
 * <p>Why one tally for every run: each run checks the same four promises, whatever it broke —
 * exactly one terminal state; at most one Bedrock call unless the first provably did nothing (a
 * throttle or a 5xx answered before any generation, a refused connection); the terminal state
 * within deadline + {@link #LATE_MARGIN_MILLIS} on the run's clock; the webhook delivered or its
 * failure visible in {@code GET}. The run reports what it saw (calls at the Bedrock stand-in,
 * webhooks at the receiver, the stored outcome), and {@link #verify()} prints one line of counts
 * and fails naming every request that broke a promise.
 */
public final class ChaosTally {

    /** A terminal state later than deadline + this is late. */
    public static final long LATE_MARGIN_MILLIS = 120_000;

    /** How one call reached the Bedrock stand-in. */
    public enum CallKind {
        /** Answered without generating anything: a throttle, a 5xx before generation, a refusal. */
        DID_NOTHING,
        /** A generation ran, or may have (answered, timed out, broken mid-answer). */
        MAY_HAVE_RUN
    }

    /** The request's end as the store and {@code GET} show it. */
    public record Outcome(String state, String reason, long finishedAtMillis, boolean webhookFailureVisible) {
        public boolean terminal() {
            return state != null && !List.of("QUEUED", "ADMITTED", "INVOKING").contains(state);
        }
    }

    private final String scenario;
    private final Map<String, Long> deadlines = new ConcurrentHashMap<>();
    private final Map<String, List<CallKind>> calls = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> webhooks = new ConcurrentHashMap<>();
    private final Map<String, List<String>> webhookStates = new ConcurrentHashMap<>();
    private final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
    private final AtomicInteger faults = new AtomicInteger();

    private ChaosTally(String scenario) {
        this.scenario = Objects.requireNonNull(scenario, "scenario");
    }

    public static ChaosTally named(String scenario) {
        return new ChaosTally(scenario);
    }

    public String scenario() {
        return scenario;
    }

    /** A request the run submitted (accepted with 202), due by {@code deadlineMillis} on the run's clock. */
    public void submitted(String requestId, long deadlineMillis) {
        deadlines.put(requestId, deadlineMillis);
    }

    /** The deadline once the store knows it exactly (it counts from acceptance). */
    public void deadline(String requestId, long deadlineMillis) {
        deadlines.replace(requestId, deadlineMillis);
    }

    public List<String> requestIds() {
        return List.copyOf(deadlines.keySet());
    }

    /** One fault injected. */
    public void fault() {
        faults.incrementAndGet();
    }

    public int faults() {
        return faults.get();
    }

    /** One call that reached the Bedrock stand-in for {@code requestId}. */
    public void call(String requestId, CallKind kind) {
        calls.computeIfAbsent(requestId, id -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(kind);
    }

    public int calls(String requestId) {
        return calls.getOrDefault(requestId, List.of()).size();
    }

    /** One webhook that reached the receiver, with the terminal state its body carried. */
    public void webhook(String requestId, String state) {
        webhooks.computeIfAbsent(requestId, id -> new AtomicInteger()).incrementAndGet();
        webhookStates.computeIfAbsent(requestId, id -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(state);
    }

    public boolean webhookDelivered(String requestId) {
        return webhooks.containsKey(requestId);
    }

    /** The request's end as read at the end of the run (state null: unknown, e.g. a 404). */
    public void outcome(String requestId, Outcome outcome) {
        outcomes.put(requestId, outcome);
    }

    /** Calls made after one that may have run: each is a Bedrock call the request should not have had. */
    static int duplicatedCalls(List<CallKind> kinds) {
        int firstRan = kinds.indexOf(CallKind.MAY_HAVE_RUN);
        return firstRan < 0 ? 0 : kinds.size() - firstRan - 1;
    }

    /** Counts, and every request that broke a promise with what it broke. */
    public record Verdict(String line, Map<String, String> broken) {
        public boolean passed() {
            return broken.isEmpty();
        }
    }

    public Verdict verdict() {
        int lost = 0;
        int duplicated = 0;
        int late = 0;
        int delivered = 0;
        int visible = 0;
        Map<String, String> broken = new LinkedHashMap<>();
        for (String id : deadlines.keySet().stream().sorted().toList()) {
            List<String> problems = new ArrayList<>();
            Outcome outcome = outcomes.get(id);
            if (outcome == null || !outcome.terminal()) {
                lost++;
                problems.add("no terminal state (" + (outcome == null ? "never read" : outcome.state()) + ")");
            } else {
                if (outcome.finishedAtMillis() > deadlines.get(id) + LATE_MARGIN_MILLIS) {
                    late++;
                    problems.add("terminal " + (outcome.finishedAtMillis() - deadlines.get(id)) + " ms after its deadline");
                }
                for (String state : webhookStates.getOrDefault(id, List.of())) {
                    if (!state.equals(outcome.state())) {
                        problems.add("a webhook said " + state + " but the request ended " + outcome.state());
                    }
                }
            }
            int extra = duplicatedCalls(calls.getOrDefault(id, List.of()));
            if (extra > 0) {
                duplicated += extra;
                problems.add(calls.get(id) + ": " + extra + " call(s) after one that may have run");
            }
            if (webhooks.containsKey(id)) {
                delivered++;
            } else if (outcome != null && outcome.webhookFailureVisible()) {
                visible++;
            } else {
                problems.add("webhook neither delivered nor its failure visible in GET");
            }
            if (!problems.isEmpty()) {
                broken.put(id, String.join("; ", problems));
            }
        }
        String line = "chaos " + scenario + ": requests=" + deadlines.size() + " faults=" + faults.get() + " lost=" + lost
                + " duplicated-calls=" + duplicated + " late-terminals=" + late + " webhooks-delivered=" + delivered
                + " webhook-failures-visible=" + visible;
        return new Verdict(line, broken);
    }

    /** Prints the line of counts; fails naming every request that broke a promise. */
    public Verdict verify() {
        Verdict verdict = verdict();
        System.out.println(verdict.line());
        if (!verdict.passed()) {
            StringBuilder text = new StringBuilder(verdict.line()).append('\n');
            verdict.broken().forEach((id, why) -> text.append("  ").append(id).append(": ").append(why).append('\n'));
            throw new AssertionError(text.toString());
        }
        return verdict;
    }
}
