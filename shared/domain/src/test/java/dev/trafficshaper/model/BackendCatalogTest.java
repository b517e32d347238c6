package dev.trafficshaper.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.TokenUsage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BackendCatalogTest {

    @Test
    void theBuiltInModelsCoverEveryBackend() {
        assertThat(ModelCatalog.defaults().all()).extracting(ModelConfig::backend)
                .contains(Backend.values());
    }

    @Test
    void aMantleModelReservesItsOutputAllowanceOnInputTpmAsThatEndpointChecksIt() {
        ModelConfig mantle = ModelCatalog.defaults().require("claude-sonnet-mantle");
        Charge reservation = Charge.reservation(mantle.quota(), new TokenUsage(1_000, 500, 200, 0));
        assertThat(reservation.inputTokens()).isEqualTo(1_700);
        assertThat(reservation.outputTokens()).isEqualTo(500);
        Charge settled = Charge.settlement(mantle.quota(), new TokenUsage(1_000, 120, 200, 0));
        assertThat(settled.inputTokens()).as("cache reads are not counted").isEqualTo(1_000);

        ModelConfig runtime = ModelCatalog.defaults().require("nova-lite");
        assertThat(Charge.reservation(runtime.quota(), TokenUsage.of(1_000, 500)).inputTokens()).isEqualTo(1_000);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"backend":"mantle-messages","modelId":"anthropic.x","quotas":{"tpm":1000}}                       | bedrock-mantle meters inputTpm and outputTpm only
            {"backend":"mantle-responses","modelId":"openai.x","quotas":{"inputTpm":10,"outputTpm":1,"rpm":5}} | bedrock-mantle meters inputTpm and outputTpm only
            {"backend":"invoke-model","modelId":"cohere.command-r-v1:0","quotas":{"tpm":1000}}                | bodyFormat: required
            {"backend":"converse","modelId":"a.b","quotas":{"tpm":1000},"bodyFormat":"nova"}                  | only for backend invoke-model
            {"backend":"converse","modelId":"a.b","quotas":{"tpm":1000},"auth":"api-key"}                     | only for bedrock-mantle backends
            {"backend":"mantle-chat-completions","modelId":"o.x","quotas":{"inputTpm":1,"outputTpm":1},"tokenCounting":"count-tokens"} | CountTokens is a bedrock-runtime API
            {"backend":"converse","modelId":"a.b","quotas":{"tpm":1000},"bulkServiceTier":"flex"}             | not in serviceTiers
            {"backend":"mantle-messages","modelId":"anthropic.x","quotas":{"inputTpm":1,"outputTpm":1},"serviceTiers":["flex"]} | only default
            {"backend":"sagemaker","modelId":"a.b","quotas":{"tpm":1000}}                                     | expected one of converse, invoke-model, mantle-chat-completions
            """)
    void backendOptionsThatCannotWorkAreReported(String model, String problem) {
        assertThatThrownBy(() -> ModelCatalog.parse("{\"models\":{\"m\":" + model + "}}"))
                .isInstanceOf(InvalidModelsFileException.class).hasMessageContaining(problem);
    }

    @Test
    void aFallbackMustTakeTheSameBodyShape() {
        assertThatThrownBy(() -> ModelCatalog.parse("""
                {"models": {"a": {"modelId": "a.b", "quotas": {"tpm": 10}, "fallback": "b"},
                            "b": {"modelId": "openai.x", "backend": "mantle-chat-completions",
                                  "quotas": {"inputTpm": 10, "outputTpm": 1}}}}"""))
                .hasMessageContaining("models.a.fallback: model 'b' uses backend mantle-chat-completions");
    }

    @ParameterizedTest
    @CsvSource({"anthropic.claude-3-haiku-20240307-v1:0,ANTHROPIC", "us.anthropic.claude-sonnet-4-v1:0,ANTHROPIC",
            "global.anthropic.claude-opus-4-v1:0,ANTHROPIC", "amazon.nova-lite-v1:0,NOVA", "eu.amazon.nova-pro-v1:0,NOVA",
            "meta.llama3-8b-instruct-v1:0,LLAMA", "us.meta.llama3-2-90b-instruct-v1:0,LLAMA",
            "amazon.titan-text-express-v1,TITAN", "mistral.mistral-7b-instruct-v0:2,MISTRAL"})
    void theNativeBodyFamilyIsReadFromTheModelId(String modelId, NativeBody family) {
        assertThat(NativeBody.detect(modelId)).contains(family);
    }
}
