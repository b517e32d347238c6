package dev.trafficshaper.loadtest.scenario;

import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.pacing.PacerSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The scenarios that ship with the simulator: the first nine defined here, the rest read from the
 * JSON files beside this class's package ({@code scenarios/NAME.json}, the same format as
 * {@code --scenario FILE.json}), each with its description.
 */
public final class BuiltInScenarios {

    /** Nova Lite class: 4M tokens per minute, no RPM. */
    static final Quota NOVA_LITE = Quota.tokensPerMinute(4_000_000);
    static final LatencyModel FAST = new LatencyModel(400, 6, 0.25);

    /**
     * Bedrock's leniency fitted to the published seed experiment: a burst allowance of 5.5 minutes'
     * worth (most of a 4.6× burst gets through, throttles interleaved) and throttled attempts costing
     * twice their reservation. See the README for the calibration and its limits.
     */
    public static final Leniency SEED_CALIBRATION = new Leniency(5.5, 2.0, false);

    /**
     * The shaper as these scenarios run it: what a user gets, the production defaults (a model in the
     * models file that names no target gets 0.95, lanes 0.30 / 0.70).
     */
    public static final PacerSettings SHAPER = PacerSettings.defaults();

    /**
     * The margin the production estimator adds to its input counts ({@code CharacterTokenEstimator}'s
     * default 10%), whatever the scenario's estimation error: a user does not know the error.
     */
    public static final double PRODUCTION_INPUT_MARGIN = 0.10;

    /** The heavy-tenant scenario's shares: each light tenant asks for less than its fair fifth. */
    static final List<Double> HEAVY_TENANT = List.of(0.70, 0.075, 0.075, 0.075, 0.075);

    /** The built-in scenarios kept as scenario files, in the order they are listed. */
    static final List<String> FILES = List.of("long-generations-split-tpm", "claude-burndown-overreserved",
            "background-quarter", "minute-boundary-burst", "estimates-off-40", "rpm-bound-small",
            "diurnal-two-hours");

    private static final Map<String, Scenario> SCENARIOS = new LinkedHashMap<>();

    static {
        add(new Scenario("seed-burst",
                "The published experiment: 1,000 requests of ~18.5k tokens within 30 s against 4M TPM (4.6x).",
                NOVA_LITE, null, SEED_CALIBRATION, null, FAST, null,
                List.of(Phase.burst(30, 1_000)),
                TokenDistribution.normal(18_000, 600), TokenDistribution.normal(500, 100), 1_000L,
                null, null, 10, 0.10, SHAPER, PRODUCTION_INPUT_MARGIN, null, null, null, null, null));
        add(steady("at-quota", "Poisson arrivals at exactly the quota for 10 minutes.",
                List.of(Phase.poisson(600, 1.0))));
        add(steady("spiky", "Load swinging sinusoidally between 1x and 4x the quota, period 2 minutes.",
                List.of(Phase.sinusoid(600, 1.0, 4.0, 120))));
        add(steady("extreme-spike", "Two idle minutes, then one minute at 5x the quota.",
                List.of(Phase.idle(120), Phase.poisson(60, 5.0))));
        add(steady("steady-spike", "1.2x the quota for 4 minutes, a 3.5x minute, then 1.2x again for 4 minutes.",
                List.of(Phase.poisson(240, 1.2), Phase.poisson(60, 3.5), Phase.poisson(240, 1.2))));
        add(new Scenario("mixed-sizes",
                "Inputs from 400 to 78,000 tokens (log-uniform), 2x the quota for 5 minutes, two lanes, three tenants.",
                NOVA_LITE, null, null, null, FAST, null, List.of(Phase.poisson(300, 2.0)),
                TokenDistribution.logUniform(400, 78_000), TokenDistribution.normal(600, 200), 1_000L,
                0.2, 3, 4, 0.15, SHAPER, PRODUCTION_INPUT_MARGIN, null, null, null, null, null));
        add(new Scenario("over-reservation",
                "maxTokens 16,384 while answers are ~650 tokens: reservations dwarf usage. 2x for 5 minutes.",
                NOVA_LITE, null, null, null, FAST, null, List.of(Phase.poisson(300, 2.0)),
                TokenDistribution.normal(2_000, 500), TokenDistribution.normal(650, 100), 16_384L,
                null, null, 4, 0.10, SHAPER, PRODUCTION_INPUT_MARGIN, null, null, null, null, null));
        add(new Scenario("long-latency-otpm",
                "Separate input (2M) and output (200k) TPM, 60 s generations, 2x the output quota for 10 minutes.",
                new Quota(0, 0, 2_000_000, 200_000, 1), null, null, null, new LatencyModel(1_000, 20, 0.1), null,
                List.of(Phase.poisson(600, 2.0)),
                TokenDistribution.normal(4_000, 1_000), TokenDistribution.normal(3_000, 300), 3_500L,
                null, null, 4, 0.10, SHAPER, PRODUCTION_INPUT_MARGIN, null, null, null, null, null));
        add(new Scenario("heavy-tenant",
                "One tenant sends 70% of the requests, four others 7.5% each, 2x the quota for 5 minutes.",
                NOVA_LITE, null, null, null, FAST, null, List.of(Phase.poisson(300, 2.0)),
                TokenDistribution.normal(3_000, 1_000), TokenDistribution.normal(400, 150), 800L,
                null, null, 4, 0.10, SHAPER, PRODUCTION_INPUT_MARGIN, null, HEAVY_TENANT, null, null, null));
        FILES.forEach(name -> add(file(name)));
    }

    private static Scenario file(String name) {
        String resource = "scenarios/" + name + ".json";
        try (InputStream in = BuiltInScenarios.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("built-in scenario file missing: " + resource);
            }
            return ScenarioFile.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read built-in scenario " + resource, e);
        }
    }

    private static Scenario steady(String name, String description, List<Phase> phases) {
        return new Scenario(name, description, NOVA_LITE, null, null, null, FAST, null, phases,
                TokenDistribution.normal(3_000, 1_000), TokenDistribution.normal(400, 150), 800L,
                0.2, 3, 4, 0.10, SHAPER, PRODUCTION_INPUT_MARGIN, null, null, null, null, null);
    }

    private static void add(Scenario scenario) {
        SCENARIOS.put(scenario.name(), scenario);
    }

    public static Optional<Scenario> find(String name) {
        return Optional.ofNullable(SCENARIOS.get(name));
    }

    public static List<String> names() {
        return List.copyOf(SCENARIOS.keySet());
    }

    private BuiltInScenarios() {
    }
}
