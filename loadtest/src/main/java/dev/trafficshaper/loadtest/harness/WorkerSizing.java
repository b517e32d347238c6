package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.simulator.provider.LatencyModel;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How many workers a schedule needs, by Little's law.
 *
 * <p>Why: an open-loop generator must send every request at its instant whatever the endpoint
 * does, so a worker holds each request for as long as its arm keeps it — a direct call for the
 * whole generation plus its retries and their backoff, a shaper submission for one API round trip —
 * and what a worker can hold at once (threads, sockets, memory) is what limits it. By Little's
 * law the requests held at once are {@code L = λ × W} for arrival rate {@code λ} and holding time
 * {@code W}, so
 * <pre>
 *   workers = ⌈ Σ_arms λ_peak × W_arm ÷ inFlightPerWorker ⌉
 * </pre>
 * with {@code λ_peak} the schedule's busiest 10 s (a burst, not the average, fills the workers) and
 * {@code W_arm} from the scenario's latency model at the expected output length:
 * <ul>
 *   <li>direct: one call, {@code ttft + msPerToken × E[output]}, jitter at its high end;
 *   <li>retry-jitter: the worst case of a burst, 4 calls plus the backoff ceilings 1 + 2 + 4 s;
 *   <li>sdk-adaptive: 3 calls plus the SDK's throttling backoff (1 + 2 s); its rate limiter may
 *       hold requests longer, which is why {@code --workers} can override the result;
 *   <li>shaper: one submission, {@value #SUBMIT_SECONDS} s.
 * </ul>
 * At low load the result is one worker; it is never more than the number of requests.
 */
public record WorkerSizing(int workers, double peakRatePerSecond, Map<ArmKind, Double> holdSeconds,
                           double heldAtOnce, int inFlightPerWorker) {

    public static final double SUBMIT_SECONDS = 0.25;
    static final long PEAK_WINDOW_MILLIS = 10_000;

    public WorkerSizing {
        holdSeconds = Map.copyOf(holdSeconds);
    }

    public static WorkerSizing of(RunSchedule schedule, Scenario scenario, List<ArmKind> arms, int inFlightPerWorker) {
        if (inFlightPerWorker < 1) {
            throw new IllegalArgumentException("inFlightPerWorker must be at least 1");
        }
        double peak = schedule.peakRatePerSecond(PEAK_WINDOW_MILLIS);
        double call = callSeconds(scenario);
        Map<ArmKind, Double> hold = new EnumMap<>(ArmKind.class);
        double held = 0;
        for (ArmKind arm : arms) {
            double seconds = switch (arm) {
                case DIRECT -> call;
                case RETRY_JITTER -> RetryPolicies.SEED_ATTEMPTS * call + 1 + 2 + 4;
                case SDK_ADAPTIVE -> 3 * call + 1 + 2;
                case SHAPER -> SUBMIT_SECONDS;
            };
            hold.put(arm, seconds);
            held += peak * seconds;
        }
        int workers = (int) Math.max(1, Math.min(Math.max(1, schedule.size()), Math.ceil(held / inFlightPerWorker)));
        return new WorkerSizing(workers, peak, hold, held, inFlightPerWorker);
    }

    /** One Bedrock call at the expected output length, jitter at its high end, in seconds. */
    static double callSeconds(Scenario scenario) {
        LatencyModel latency = scenario.latency();
        double output = Math.min(scenario.maxTokens(), scenario.outputTokens().expectedValue());
        return (latency.timeToFirstTokenMillis() + latency.millisPerOutputToken() * output)
                * (1 + latency.jitter()) / 1_000.0;
    }

    /** One line for the run's header. */
    public String explain() {
        StringBuilder arms = new StringBuilder();
        holdSeconds.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> arms
                .append(arms.length() == 0 ? "" : ", ")
                .append(entry.getKey().wireName()).append(' ')
                .append(String.format(Locale.ROOT, "%.2f s", entry.getValue())));
        return String.format(Locale.ROOT, "%d worker%s by Little's law: peak %.1f requests/s × hold (%s) = %.0f held at"
                        + " once, %d per worker", workers, workers == 1 ? "" : "s", peakRatePerSecond, arms, heldAtOnce,
                inFlightPerWorker);
    }
}
