package dev.trafficshaper.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.scenario.BuiltInScenarios;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.TrafficGenerator;
import dev.trafficshaper.loadtest.sim.SimRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunScheduleTest {

    @Test
    void theHarnessPlaysExactlyTheRequestsTheSimulatorPredicts() {
        Scenario scenario = BuiltInScenarios.find("steady-spike").orElseThrow();
        List<SimRequest> simulated = TrafficGenerator.generate(scenario, 7);
        RunSchedule schedule = RunSchedule.of(scenario, 7);

        assertThat(schedule.size()).isEqualTo(simulated.size());
        for (int i = 0; i < simulated.size(); i++) {
            SimRequest s = simulated.get(i);
            ScheduledRequest r = schedule.requests().get(i);
            assertThat(r).isEqualTo(new ScheduledRequest(s.index(), s.arrivalMillis(), s.trueInputTokens(),
                    s.outputTokens(), s.maxTokens(), s.lane()));
        }
    }

    @Test
    void workersSliceTheScheduleRoundRobinSoEveryRequestIsPlayedOnceInOrder() {
        RunSchedule schedule = RunSchedule.of(TestRuns.burst(101), 42);
        List<ScheduledRequest> all = new ArrayList<>();
        for (int worker = 0; worker < 4; worker++) {
            int owner = worker;
            List<ScheduledRequest> slice = schedule.slice(worker, 4);
            assertThat(slice).isSortedAccordingTo(Comparator.comparingLong(ScheduledRequest::arrivalMillis));
            assertThat(slice).allMatch(r -> r.index() % 4 == owner);
            all.addAll(slice);
        }
        assertThat(all).hasSize(101).containsExactlyInAnyOrderElementsOf(schedule.requests());
    }

    @Test
    void timeWindowsOfASliceTogetherHoldTheWholeSlice() {
        RunSchedule schedule = RunSchedule.of(TestRuns.burst(60), 42);
        List<ScheduledRequest> windows = new ArrayList<>(schedule.slice(1, 3, 0, 4_000));
        windows.addAll(schedule.slice(1, 3, 4_000, 8_000));
        windows.addAll(schedule.slice(1, 3, 8_000, Long.MAX_VALUE));
        assertThat(windows).isEqualTo(schedule.slice(1, 3));
    }

    @Test
    void thePeakRateIsTheBusiestWindowNotTheAverage() {
        RunSchedule schedule = RunSchedule.of(List.of(request(0, 0), request(1, 100), request(2, 200),
                request(3, 9_000), request(4, 60_000)));

        assertThat(schedule.peakRatePerSecond(1_000)).isEqualTo(3.0);
        assertThat(schedule.peakRatePerSecond(10_000)).isEqualTo(0.4);
        assertThat(schedule.lastArrivalMillis()).isEqualTo(60_000);
    }

    private static ScheduledRequest request(int index, long at) {
        return new ScheduledRequest(index, at, 100, 10, 20, dev.trafficshaper.pacing.Lane.BULK);
    }
}
