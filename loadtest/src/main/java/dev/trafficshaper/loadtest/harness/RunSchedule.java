package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.TrafficGenerator;
import dev.trafficshaper.loadtest.sim.SimRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The arrival instants of a scenario, exactly as {@code simulate} generates them from the same seed:
 * a user writes a traffic profile once, predicts it with the simulator and measures it with the
 * harness. Every worker and the report regenerate it from the scenario and seed in the run's
 * manifest, so no schedule is shipped around.
 *
 * <p>A worker owns every {@code workers}-th request (round robin by index): each worker then sees
 * the same shape of traffic at {@code 1/workers} of the rate, and no worker's slice clumps.
 */
public final class RunSchedule {

    private final List<ScheduledRequest> requests;

    private RunSchedule(List<ScheduledRequest> requests) {
        this.requests = List.copyOf(requests);
    }

    public static RunSchedule of(Scenario scenario, long seed) {
        List<ScheduledRequest> requests = new ArrayList<>();
        for (SimRequest request : TrafficGenerator.generate(scenario, seed)) {
            requests.add(ScheduledRequest.from(request));
        }
        return new RunSchedule(requests);
    }

    public static RunSchedule of(List<ScheduledRequest> requests) {
        return new RunSchedule(requests);
    }

    public List<ScheduledRequest> requests() {
        return requests;
    }

    public int size() {
        return requests.size();
    }

    /** The last arrival, in milliseconds after the start; 0 when empty. */
    public long lastArrivalMillis() {
        return requests.isEmpty() ? 0 : requests.get(requests.size() - 1).arrivalMillis();
    }

    /** Worker {@code worker} of {@code workers}: every request whose index is {@code worker} modulo {@code workers}. */
    public List<ScheduledRequest> slice(int worker, int workers) {
        return slice(worker, workers, 0, Long.MAX_VALUE);
    }

    /** As {@link #slice(int, int)}, only the arrivals in {@code [fromMillis, untilMillis)}. */
    public List<ScheduledRequest> slice(int worker, int workers, long fromMillis, long untilMillis) {
        if (workers < 1 || worker < 0 || worker >= workers) {
            throw new IllegalArgumentException("worker " + worker + " of " + workers);
        }
        List<ScheduledRequest> slice = new ArrayList<>();
        for (ScheduledRequest request : requests) {
            if (request.index() % workers == worker && request.arrivalMillis() >= fromMillis
                    && request.arrivalMillis() < untilMillis) {
                slice.add(request);
            }
        }
        return slice;
    }

    /** The most arrivals in any {@code windowMillis} window, as a rate per second. */
    public double peakRatePerSecond(long windowMillis) {
        if (windowMillis < 1) {
            throw new IllegalArgumentException("windowMillis must be positive");
        }
        int most = 0;
        int from = 0;
        for (int to = 0; to < requests.size(); to++) {
            while (requests.get(to).arrivalMillis() - requests.get(from).arrivalMillis() >= windowMillis) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most * 1_000.0 / windowMillis;
    }
}
