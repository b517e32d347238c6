package dev.trafficshaper.loadtest.aws;

import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.scenario.Scenario;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@code run --aws} plays and how.
 *
 * @param out          where the report goes once the run is over; null for {@code loadtest-out/<runId>}
 * @param region       null for the default region chain
 * @param modelId      the direct arms' Bedrock model id; null to take the shaper's for {@code modelKey}
 * @param workers      null to size by Little's law
 * @param dryRun       print the plan and the cost estimate, start nothing
 */
public record AwsRunSettings(Scenario scenario, long seed, List<ArmKind> arms, Path out, String stackName,
                             String region, String modelKey, String modelId, Integer workers, int inFlightPerWorker,
                             double drainMinutes, Long deadlineSeconds, double windowMinutes, boolean dryRun,
                             double inputPricePerMillion, double outputPricePerMillion) {

    public AwsRunSettings {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(stackName, "stackName");
        Objects.requireNonNull(modelKey, "modelKey");
        arms = List.copyOf(arms);
        if (workers != null && workers < 1) {
            throw new IllegalArgumentException("--workers must be at least 1");
        }
        if (!(drainMinutes > 0) || !(windowMinutes > 0)) {
            throw new IllegalArgumentException("--drain-minutes and --window-minutes must be positive");
        }
        if (inputPricePerMillion < 0 || outputPricePerMillion < 0) {
            throw new IllegalArgumentException("prices must not be negative");
        }
    }
}
