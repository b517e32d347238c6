package dev.trafficshaper.loadtest.harness;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.scenario.ScenarioFile;
import java.util.List;

/**
 * {@code run.json}: everything needed to replay or reconcile a run. It is written before the first
 * request is sent, so even a run killed in its first second can be reported: the schedule is
 * regenerated from the scenario and seed, and every scheduled request without a terminal outcome
 * counts as lost.
 *
 * @param target                   {@code local} or {@code aws}
 * @param scenario                 the scenario as run (the JSON {@code simulate} reads)
 * @param arms                     arm wire names, in the order given
 * @param modelKey                 the shaper's model key
 * @param modelId                  the Bedrock model id the direct arms call
 * @param timeScale                run-clock milliseconds per wall millisecond (1 on AWS)
 * @param startEpochMillis         the run clock at the schedule's time 0
 * @param workers                  how many workers share the schedule (round robin by index)
 * @param windowMillis             (AWS) the length of one worker invocation's part of the schedule
 * @param drainDeadlineEpochMillis after this the reconcile step stops waiting for outcomes
 * @param deadlineSeconds          the deadline given to each shaper request, or null for the model's
 * @param requests                 how many requests the schedule holds (a check on regeneration)
 */
public record RunManifest(
        String runId,
        String target,
        JsonNode scenario,
        long seed,
        List<String> arms,
        String modelKey,
        String modelId,
        double timeScale,
        long startEpochMillis,
        int workers,
        Long windowMillis,
        long drainDeadlineEpochMillis,
        Long deadlineSeconds,
        int requests) {

    public static final String LOCAL = "local";
    public static final String AWS = "aws";

    public RunManifest {
        RequestIds.requireRunId(runId);
        if (scenario == null || arms == null || arms.isEmpty() || workers < 1 || timeScale <= 0) {
            throw new IllegalArgumentException("a manifest needs a scenario, arms, workers >= 1 and a time scale");
        }
        arms = List.copyOf(arms);
    }

    public static RunManifest of(String runId, String target, Scenario scenario, long seed, List<ArmKind> arms,
                                 String modelKey, String modelId, double timeScale, long startEpochMillis,
                                 int workers, Long windowMillis, long drainDeadlineEpochMillis, Long deadlineSeconds,
                                 int requests) {
        JsonNode tree = LoadTestJson.tree(ScenarioFile.write(scenario));
        return new RunManifest(runId, target, tree, seed, arms.stream().map(ArmKind::wireName).toList(), modelKey,
                modelId, timeScale, startEpochMillis, workers, windowMillis, drainDeadlineEpochMillis,
                deadlineSeconds, requests);
    }

    @JsonIgnore
    public Scenario scenarioDefinition() {
        return ScenarioFile.parse(scenario.toString());
    }

    @JsonIgnore
    public List<ArmKind> armKinds() {
        return ArmKind.parse(arms);
    }

    /** The schedule, regenerated; fails if it no longer has the size the run had. */
    @JsonIgnore
    public RunSchedule schedule() {
        RunSchedule schedule = RunSchedule.of(scenarioDefinition(), seed);
        if (schedule.size() != requests) {
            throw new IllegalStateException("run " + runId + " scheduled " + requests + " requests, but its scenario"
                    + " and seed now generate " + schedule.size() + ": was it run with another version?");
        }
        return schedule;
    }

    public static RunManifest read(ObjectStore store) {
        byte[] bytes = store.get(RunLayout.MANIFEST).orElseThrow(() -> new IllegalArgumentException(
                "no " + RunLayout.MANIFEST + " in " + store.describe() + ": not a load-test run"));
        return LoadTestJson.read(bytes, RunManifest.class);
    }

    public void write(ObjectStore store) {
        store.put(RunLayout.MANIFEST, LoadTestJson.pretty(this));
    }
}
