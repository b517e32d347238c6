package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.loadtest.scenario.Scenario;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@code run --local} plays and how.
 *
 * @param timeScale     every clock of the run (meters, pacer, generation time, backoff) runs this
 *                      many times faster than the wall, 1 to 60
 * @param workers       worker threads sharing the schedule; null to size them by Little's law
 * @param drainMinutes  run-clock minutes after the last arrival to wait for outcomes before the
 *                      rest count as lost
 * @param deadlineSeconds each shaper request's deadline, or null for the local model's (6 h)
 */
public record LocalRunSettings(Scenario scenario, long seed, List<ArmKind> arms, Path out, double timeScale,
                               Integer workers, int inFlightPerWorker, double drainMinutes, Long deadlineSeconds,
                               String modelKey, String modelId) {

    public static final double MAX_TIME_SCALE = 60;
    public static final String DEFAULT_MODEL_KEY = "nova-lite";
    public static final String DEFAULT_MODEL_ID = "amazon.nova-lite-v1:0";

    public LocalRunSettings {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(out, "out");
        arms = List.copyOf(arms);
        if (arms.isEmpty()) {
            throw new IllegalArgumentException("name at least one arm");
        }
        if (!(timeScale >= 1 && timeScale <= MAX_TIME_SCALE)) {
            throw new IllegalArgumentException("--time-scale must be in [1, " + (int) MAX_TIME_SCALE + "], was "
                    + timeScale);
        }
        if (workers != null && workers < 1) {
            throw new IllegalArgumentException("--workers must be at least 1, was " + workers);
        }
        if (inFlightPerWorker < 1) {
            throw new IllegalArgumentException("--in-flight-per-worker must be at least 1");
        }
        if (!(drainMinutes > 0)) {
            throw new IllegalArgumentException("--drain-minutes must be positive, was " + drainMinutes);
        }
        if (deadlineSeconds != null && deadlineSeconds < 1) {
            throw new IllegalArgumentException("--deadline-seconds must be at least 1");
        }
        modelKey = modelKey == null ? DEFAULT_MODEL_KEY : modelKey;
        modelId = modelId == null ? DEFAULT_MODEL_ID : modelId;
    }
}
