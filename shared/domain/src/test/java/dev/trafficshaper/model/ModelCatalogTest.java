package dev.trafficshaper.model;

import dev.trafficshaper.quota.Quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ModelCatalogTest {

    @Test
    void defaultsServeTheSeedExperimentsModel() {
        ModelConfig nova = ModelCatalog.defaults().require("nova-lite");

        assertThat(nova.modelId()).isEqualTo("amazon.nova-lite-v1:0");
        assertThat(nova.quota().tpm()).isEqualTo(4_000_000);
        assertThat(nova.pacer().targetUtilization()).isEqualTo(0.95);
        assertThat(nova.pacer().headroom()).as("headroom is on unless switched off").isTrue();
        assertThat(nova.pacer().headroomCeiling()).isEqualTo(1.0);
        assertThat(nova.pacer().headroomBudget()).isEqualTo(0.01);
        assertThat(ModelCatalog.defaults().require("claude-sonnet").quota().outputBurndown()).isEqualTo(5);
    }

    @Test
    void parsesEveryField() {
        ModelCatalog catalog = ModelCatalog.parse("""
                {"models": {"m": {"modelId": "x.y", "backend": "invoke-model", "bodyFormat": "llama",
                  "serviceTiers": ["flex", "priority"], "bulkServiceTier": "flex", "tokenCounting": "count-tokens",
                  "media": {"pixelsPerImageToken": 500, "maxTokensPerImage": 900, "tokensPerDocumentPage": 1200},
                  "quotas": {"tpm": 100, "rpm": 10, "inputTpm": 80, "outputTpm": 20, "outputBurndown": 3},
                  "maxTokens": 50, "maxInputTokens": 60, "targetUtilization": 0.9, "shards": 2,
                  "defaultDeadlineSeconds": 10, "maxDeadlineSeconds": 20, "headroom": false, "headroomCeiling": 0.97,
                  "headroomBudget": 0.02,
                  "lanes": {"interactiveReserve": 0.2, "bulkCap": 0.6}, "tenantCaps": {"t1": 0.5}}}}
                """);

        ModelConfig m = catalog.require("m");
        assertThat(m.backend()).isEqualTo(Backend.INVOKE_MODEL);
        assertThat(m.quota()).isEqualTo(new Quota(100, 10, 80, 20, 3));
        assertThat(m.pacer().bulkShareUnderContention()).isEqualTo(0.6);
        assertThat(m.pacer().headroom()).isFalse();
        assertThat(m.pacer().headroomCeiling()).isEqualTo(0.97);
        assertThat(m.pacer().headroomBudget()).isEqualTo(0.02);
        assertThat(m.pacer().tenantCaps()).containsEntry("t1", 0.5);
        assertThat(m.shards()).isEqualTo(2);
        assertThat(m.nativeBody()).contains(NativeBody.LLAMA);
        assertThat(m.backendSettings().serviceTiers())
                .containsExactlyInAnyOrder(ServiceTier.DEFAULT, ServiceTier.FLEX, ServiceTier.PRIORITY);
        assertThat(m.backendSettings().bulkTier()).contains(ServiceTier.FLEX);
        assertThat(m.backendSettings().tokenCounting()).isEqualTo(BackendSettings.TokenCounting.COUNT_TOKENS);
        assertThat(m.backendSettings().media()).isEqualTo(new MediaRule(500, 900, 1200));
    }

    @Test
    void reportsEveryProblemWithItsPath() {
        assertThatThrownBy(() -> ModelCatalog.parse("""
                {"models": {"m": {"quotas": {"tpm": -1}, "shards": 0, "targetUtilization": 1.5, "colour": "red",
                  "headroom": "yes"}}}
                """))
                .isInstanceOfSatisfying(InvalidModelsFileException.class, e -> assertThat(e.problems()).contains(
                        "models.m.modelId: required",
                        "models.m.quotas.tpm: must be an integer >= 0, was -1",
                        "models.m.shards: must be an integer >= 1, was 0",
                        "models.m.targetUtilization: must be a number in (0, 1], was 1.5",
                        "models.m.headroom: must be true or false, was \"yes\"")
                        .anyMatch(p -> p.startsWith("models.m.colour: unknown field")));
    }

    @Test
    void aHeadroomBudgetOutsideATenthOfTheCallsIsRefusedWithItsPath() {
        for (String refused : new String[] {"0.5", "0", "-0.01", "\"1%\""}) {
            assertThatThrownBy(() -> ModelCatalog.parse("""
                    {"models": {"m": {"modelId": "x", "quotas": {"tpm": 1}, "headroomBudget": %s}}}
                    """.formatted(refused)))
                    .isInstanceOfSatisfying(InvalidModelsFileException.class, e -> assertThat(e.problems())
                            .containsExactly("models.m.headroomBudget: must be a number in (0, 0.1], was " + refused));
        }
        assertThat(ModelCatalog.parse("""
                {"models": {"m": {"modelId": "x", "quotas": {"tpm": 1}, "headroomBudget": 0.1}}}
                """).require("m").pacer().headroomBudget()).as("the edge is accepted").isEqualTo(0.1);
    }

    @Test
    void rejectsAnUnknownFallbackAndBrokenJson() {
        assertThatThrownBy(() -> ModelCatalog.parse("""
                {"models": {"m": {"modelId": "x", "quotas": {"tpm": 1}, "fallback": "nope"}}}
                """)).hasMessageContaining("models.m.fallback: unknown model 'nope'");
        assertThatThrownBy(() -> ModelCatalog.parse("{\"models\": ")).hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> ModelCatalog.parse("{}")).hasMessageContaining("at least one model");
    }
}
