package dev.trafficshaper.loadtest.demo;

import java.util.List;
import java.util.Optional;

/**
 * A finished demo: the settings it ran with, each arm's outcome, and how long the run took, on the
 * demo clock ({@code burstSeconds}) and on the wall ({@code wallSeconds}, from the first arrival).
 */
public record DemoResult(DemoSettings settings, List<ArmResult> arms, double burstSeconds, double wallSeconds,
                         boolean timedOut) {

    public DemoResult {
        arms = List.copyOf(arms);
    }

    public Optional<ArmResult> arm(Arm arm) {
        return arms.stream().filter(result -> result.arm() == arm).findFirst();
    }

    /**
     * The demo's claim: every request sent through the shaper succeeded and the shaper's Bedrock saw
     * no throttle. Empty when it holds, else what went wrong.
     */
    public Optional<String> shaperShortfall() {
        Optional<ArmResult> shaper = arm(Arm.SHAPER);
        if (shaper.isEmpty()) {
            return Optional.of("the shaper arm did not run");
        }
        ArmResult r = shaper.get();
        StringBuilder problems = new StringBuilder();
        if (timedOut) {
            problems.append("the run timed out; ");
        }
        if (r.succeeded() != r.requests()) {
            problems.append(r.requests() - r.succeeded()).append(" of ").append(r.requests())
                    .append(" requests did not succeed");
            r.error().ifPresent(e -> problems.append(" (first: ").append(e).append(')'));
            problems.append("; ");
        }
        if (r.throttles() > 0) {
            problems.append("Bedrock throttled ").append(r.throttles()).append(" of its calls; ");
        }
        return problems.length() == 0 ? Optional.empty()
                : Optional.of(problems.substring(0, problems.length() - 2));
    }
}
