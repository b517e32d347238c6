package dev.trafficshaper.loadtest.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.simulator.provider.ShortHorizon;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ScenarioFileTest {

    @Test
    void readsTheDocumentedExampleWithEveryField() {
        Scenario s = ScenarioFile.read(Path.of("scenarios/example-custom.json"));

        assertThat(s.quota().outputBurndown()).isEqualTo(5);
        assertThat(s.quota().rpm()).isZero();
        assertThat(s.phases()).hasSize(3);
        assertThat(s.shaper().targetUtilization()).isEqualTo(0.95);
        assertThat(s.shaper().slowStartMillis()).isEqualTo(5_000);
        assertThat(s.faults().serverErrorRate()).isEqualTo(0.005);
        assertThat(s.tenantWeights()).containsExactly(0.4, 0.2, 0.2, 0.2);
        assertThat(s.deadlineSeconds()).isEqualTo(1_800);
        assertThat(s.deployment().dispatch().p99Millis()).isEqualTo(400);
        assertThat(s.deployment().drainerCrashSeconds()).containsExactly(150L);
    }

    @Test
    void aDeploymentNamesOnlyWhatItChanges() {
        Scenario s = ScenarioFile.parse("""
                {"name": "x", "quota": {"tpm": 1000}, "phases": [{"durationSeconds": 10, "rateMultiple": 1}],
                 "inputTokens": {"value": 100}, "outputTokens": {"value": 10}, "maxTokens": 20,
                 "deployment": {"dispatch": {"p99Millis": 2000}, "drainerCrashSeconds": [5]}}
                """);

        assertThat(s.deployment().dispatch()).isEqualTo(new LambdaModel(40, 2_000, 600, 600, 1_000));
        assertThat(s.deployment().settlementDelayMillis()).isEqualTo(Deployment.DEFAULT.settlementDelayMillis());
        assertThat(s.deployment().drainerLimitSeconds()).isEqualTo(870);
        assertThat(s.deployment().drainerCrashSeconds()).containsExactly(5L);
        assertThat(s.deadlineSeconds()).isEqualTo(3_600);
        assertThat(s.tenantWeights()).isNull();
    }

    @Test
    void tenantWeightsNameTheTenantsAndMustBePositive() {
        String base = """
                {"name": "x", "quota": {"tpm": 1000}, "phases": [{"durationSeconds": 10, "rateMultiple": 1}],
                 "inputTokens": {"value": 100}, "outputTokens": {"value": 10}, "maxTokens": 20, %s}
                """;

        assertThat(ScenarioFile.parse(base.formatted("\"tenantWeights\": [3, 1]")).tenants()).isEqualTo(2);
        assertThatThrownBy(() -> ScenarioFile.parse(base.formatted("\"tenantWeights\": [1, 0]")))
                .hasMessageContaining("tenantWeights");
        assertThatThrownBy(() -> ScenarioFile.parse(base.formatted("\"tenants\": 3, \"tenantWeights\": [1, 1]")))
                .hasMessageContaining("one share per tenant");
    }

    @Test
    void fillsDefaultsForOmittedSettings() {
        Scenario s = ScenarioFile.parse("""
                {"name": "x", "quota": {"tpm": 1000}, "phases": [{"durationSeconds": 10, "rateMultiple": 1}],
                 "inputTokens": {"value": 100}, "outputTokens": {"value": 10}, "maxTokens": 20,
                 "shaper": {"targetUtilization": 0.9}}
                """);

        assertThat(s.quotaModel()).isEqualTo("token-bucket");
        assertThat(s.shaper().targetUtilization()).isEqualTo(0.9);
        assertThat(s.shaper().interactiveReserve()).isEqualTo(0.3);
        assertThat(s.windowPacerTarget()).isEqualTo(0.85);
    }

    @Test
    void everyBuiltInSurvivesARoundTripThroughJson() {
        for (String name : BuiltInScenarios.names()) {
            Scenario builtIn = BuiltInScenarios.find(name).orElseThrow();
            assertThat(ScenarioFile.parse(ScenarioFile.write(builtIn))).as(name).isEqualTo(builtIn);
        }
    }

    @Test
    void badInputGetsAClearMessage() {
        assertThatThrownBy(() -> ScenarioFile.parse("{\"name\": \"x\", \"quota\": {\"tpm\": 1}, \"phasez\": []}"))
                .hasMessageContaining("phasez");
        assertThatThrownBy(() -> ScenarioFile.parse("""
                {"name": "x", "quota": {"tpm": 1000}, "phases": [{"durationSeconds": 10, "pattern": "wave"}],
                 "inputTokens": {"value": 1}, "outputTokens": {"value": 1}, "maxTokens": 2}
                """)).hasMessageContaining("unknown pattern 'wave'");
        assertThatThrownBy(() -> ScenarioFile.parse("""
                {"name": "x", "quota": {"tpm": 1000}, "quotaModel": "leaky",
                 "phases": [{"durationSeconds": 10, "rateMultiple": 1}],
                 "inputTokens": {"value": 1}, "outputTokens": {"value": 1}, "maxTokens": 2}
                """)).hasMessageContaining("unknown quota model 'leaky'");
        assertThatThrownBy(() -> ScenarioFile.resolve("no-such-scenario"))
                .hasMessageContaining("built-in: seed-burst");
    }

    @Test
    void theShortHorizonLimitIsOffUnlessAScenarioTurnsItOn() {
        String base = """
                {"name": "x", "quota": {"tpm": 1000}, "phases": [{"durationSeconds": 10, "rateMultiple": 1}],
                 "inputTokens": {"value": 100}, "outputTokens": {"value": 10}, "maxTokens": 20%s}
                """;

        assertThat(ScenarioFile.parse(base.formatted("")).shortHorizon().enabled()).isFalse();
        Scenario on = ScenarioFile.parse(base.formatted(", \"shortHorizon\": {\"millis\": 1000, \"share\": 0.05}"));
        assertThat(on.shortHorizon()).isEqualTo(new ShortHorizon(1_000, 0.05));
        assertThat(ScenarioFile.parse(ScenarioFile.write(on)).shortHorizon()).isEqualTo(on.shortHorizon());
        assertThatThrownBy(() -> ScenarioFile.parse(base.formatted(", \"shortHorizon\": {\"millis\": 1000}")))
                .hasMessageContaining("share");
    }
}
