package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.ScenarioFile;
import java.util.List;

/** Small runs for the harness's tests: a scenario, its manifest, and outcome lines as workers write them. */
public final class TestRuns {

    public static final String RUN_ID = "20250301t101500test";
    public static final long START = 1_740_823_000_000L;

    private TestRuns() {
    }

    /** {@code requests} of ~2,000 input and 200 output tokens in a 10 s burst against 100k TPM, strict. */
    public static Scenario burst(int requests) {
        return ScenarioFile.parse("""
                {"name": "test-burst", "quota": {"tpm": 100000},
                 "latency": {"timeToFirstTokenMillis": 400, "millisPerOutputToken": 5, "jitter": 0.1},
                 "phases": [{"durationSeconds": 10, "pattern": "burst", "requests": %d}],
                 "inputTokens": {"distribution": "normal", "mean": 2000, "stddev": 100},
                 "outputTokens": {"distribution": "fixed", "value": 200},
                 "maxTokens": 400}
                """.formatted(requests));
    }

    public static RunManifest manifest(Scenario scenario, List<ArmKind> arms, int workers) {
        RunSchedule schedule = RunSchedule.of(scenario, 42);
        return RunManifest.of(RUN_ID, RunManifest.LOCAL, scenario, 42, arms, "nova-lite", "amazon.nova-lite-v1:0", 1.0,
                START, workers, null, START + schedule.lastArrivalMillis() + 600_000, null, schedule.size());
    }

    /** A direct arm's whole line: sent on time, one call taking {@code callMillis}, the given outcome. */
    public static OutcomeLine direct(ArmKind arm, ScheduledRequest request, int worker, OutcomeStatus status,
                                     int calls, int throttles, long callMillis) {
        long due = START + request.arrivalMillis();
        OutcomeLine.Builder line = OutcomeLine.builder(arm, RequestIds.of(RUN_ID, arm, request.index()))
                .index(request.index()).worker(worker).scheduledMillis(due).sentMillis(due)
                .firstCallMillis(due).lastCallMillis(due + (calls - 1) * 1_000L)
                .finishedMillis(due + (calls - 1) * 1_000L + callMillis).status(status)
                .httpStatus(status == OutcomeStatus.SUCCEEDED ? 200 : 429).calls(calls, throttles);
        if (status == OutcomeStatus.SUCCEEDED) {
            line.tokens(request.inputTokens(), request.outputTokens(), 0, 0);
        } else {
            line.reason("ThrottlingException");
        }
        return line.build();
    }

    /** The shaper worker's submission line. */
    public static OutcomeLine submitted(ScheduledRequest request, int worker) {
        long due = START + request.arrivalMillis();
        return OutcomeLine.builder(ArmKind.SHAPER, RequestIds.of(RUN_ID, ArmKind.SHAPER, request.index()))
                .index(request.index()).worker(worker).scheduledMillis(due).sentMillis(due)
                .status(OutcomeStatus.SUBMITTED).httpStatus(202).build();
    }

    /** The webhook's terminal line for a shaper request admitted at {@code admittedAfter} and done at {@code finishedAfter}. */
    public static OutcomeLine delivered(ScheduledRequest request, long admittedAfter, long finishedAfter) {
        long due = START + request.arrivalMillis();
        return OutcomeLine.builder(ArmKind.SHAPER, RequestIds.of(RUN_ID, ArmKind.SHAPER, request.index()))
                .index(request.index()).source(OutcomeLine.FROM_WEBHOOK).firstCallMillis(due + admittedAfter)
                .lastCallMillis(due + admittedAfter).finishedMillis(due + finishedAfter)
                .status(OutcomeStatus.SUCCEEDED).httpStatus(200).calls(1, 0)
                .tokens(request.inputTokens(), request.outputTokens(), 0, 0).build();
    }
}
