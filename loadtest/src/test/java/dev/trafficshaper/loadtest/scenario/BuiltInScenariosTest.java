package dev.trafficshaper.loadtest.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.pacing.PacerSettings;
import org.junit.jupiter.api.Test;

class BuiltInScenariosTest {

    @Test
    void everyBuiltInScenarioRunsTheShaperAsAUserGetsIt() {
        PacerSettings modelsFileDefaults = ModelCatalog.parse("""
                {"models": {"m": {"modelId": "amazon.nova-lite-v1:0", "backend": "converse",
                  "quotas": {"tpm": 1000}, "maxTokens": 100}}}
                """).require("m").pacer();
        for (String name : BuiltInScenarios.names()) {
            Scenario scenario = BuiltInScenarios.find(name).orElseThrow();

            assertThat(scenario.shaper()).as(name).isEqualTo(modelsFileDefaults);
            assertThat(scenario.inputEstimateMargin()).as(name).isEqualTo(BuiltInScenarios.PRODUCTION_INPUT_MARGIN);
            assertThat(scenario.description()).as(name).isNotBlank();
            assertThat(scenario.shortHorizon().enabled()).as(name).isFalse();
        }
    }

    @Test
    void theScenarioFilesAreBuiltIn() {
        assertThat(BuiltInScenarios.names()).containsAll(BuiltInScenarios.FILES).hasSize(9 + BuiltInScenarios.FILES.size());
        for (String name : BuiltInScenarios.FILES) {
            assertThat(BuiltInScenarios.find(name).orElseThrow().name()).isEqualTo(name);
        }
    }
}
