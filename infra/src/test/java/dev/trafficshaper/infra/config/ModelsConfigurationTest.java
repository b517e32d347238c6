package dev.trafficshaper.infra.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ModelsConfigurationTest {

    private static final Path REPOSITORY_FILE = Path.of("..", "config", "models.json");

    @Test
    void repositoryModelsFileIsValidAndFitsInline() {
        ModelsConfiguration models = ModelsConfiguration.read(REPOSITORY_FILE);
        assertThat(models.modelKeys()).containsExactly("nova-lite", "claude-sonnet");
        assertThat(models.fitsInline()).isTrue();
        assertThat(models.compactJson()).doesNotContain("description").doesNotContain("\n");
        assertThat(models.longestDeadlineSeconds()).isEqualTo(3600);
        assertThat(models.largestMaxTokens()).isEqualTo(64000);
    }

    @Test
    void invalidFileNamesTheFileAndEveryProblemWithItsPath() {
        String json = """
                {"models": {"bad": {"quotas": {"tpm": -1}, "shards": 0, "fallback": "ghost", "colour": "red"}}}
                """;
        assertThatThrownBy(() -> ModelsConfiguration.parse(Path.of("config/models.json"), json))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageStartingWith("config/models.json is not a valid models file:")
                .hasMessageContaining("models.bad.modelId: required")
                .hasMessageContaining("models.bad.quotas.tpm")
                .hasMessageContaining("models.bad.shards")
                .hasMessageContaining("models.bad.colour: unknown field");
    }

    @Test
    void unknownFallbackIsRefused() {
        String json = """
                {"models": {"a": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000}, "fallback": "ghost"}}}
                """;
        assertThatThrownBy(() -> ModelsConfiguration.parse(Path.of("m.json"), json))
                .hasMessageContaining("models.a.fallback: unknown model 'ghost'");
    }

    @Test
    void everyBackendIsAccepted() {
        String json = """
                {"models": {
                  "c": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000}},
                  "i": {"modelId": "us.anthropic.claude-haiku-v1:0", "quotas": {"tpm": 1000}, "backend": "invoke-model"},
                  "cc": {"modelId": "openai.a", "quotas": {"inputTpm": 9, "outputTpm": 1}, "backend": "mantle-chat-completions"},
                  "r": {"modelId": "openai.a", "quotas": {"inputTpm": 9, "outputTpm": 1}, "backend": "mantle-responses"},
                  "m": {"modelId": "anthropic.b", "quotas": {"inputTpm": 9, "outputTpm": 1}, "backend": "mantle-messages"}}}
                """;
        assertThat(ModelsConfiguration.parse(Path.of("m.json"), json).modelKeys()).containsExactly("c", "i", "cc", "r", "m");
    }

    @Test
    void aMantleApiKeyIsRefusedSinceTheFunctionsSignWithTheirRole() {
        String json = """
                {"models": {"m": {"modelId": "anthropic.b", "quotas": {"inputTpm": 9, "outputTpm": 1},
                                  "backend": "mantle-messages", "auth": "api-key"}}}
                """;
        assertThatThrownBy(() -> ModelsConfiguration.parse(Path.of("m.json"), json))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("models.m.auth: api-key");
    }

    @Test
    void missingFileSaysHowToProvideOne() {
        assertThatThrownBy(() -> ModelsConfiguration.read(Path.of("no-such-models.json")))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("no-such-models.json: cannot read the models file")
                .hasMessageContaining("-c modelsFile=PATH");
    }

    @Test
    void aFileTooLargeForAnSsmParameterIsRefused() {
        StringBuilder json = new StringBuilder("{\"models\": {");
        for (int i = 0; i < 120; i++) {
            json.append(i == 0 ? "" : ",").append("\"model-").append(i)
                    .append("\": {\"modelId\": \"amazon.nova-lite-v1:0\", \"quotas\": {\"tpm\": 1000000},")
                    .append(" \"maxTokens\": 4096, \"shards\": 2}");
        }
        json.append("}}");
        assertThatThrownBy(() -> ModelsConfiguration.parse(Path.of("huge.json"), json.toString()))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("huge.json is ")
                .hasMessageContaining("over the 8192 bytes an SSM parameter can hold");
    }

    @Test
    void largeFileGoesToAParameterInsteadOfTheEnvironment() {
        StringBuilder json = new StringBuilder("{\"models\": {");
        for (int i = 0; i < 40; i++) {
            json.append(i == 0 ? "" : ",").append("\"model-").append(i)
                    .append("\": {\"modelId\": \"amazon.nova-lite-v1:0\", \"quotas\": {\"tpm\": 1000000},")
                    .append(" \"maxTokens\": 4096, \"shards\": 2}");
        }
        json.append("}}");
        ModelsConfiguration models = ModelsConfiguration.parse(Path.of("big.json"), json.toString());
        assertThat(models.fitsInline()).isFalse();
        assertThat(models.needsAdvancedParameter()).as("about 4 KB fits a standard parameter").isFalse();
    }

    @Test
    void aFileBetweenFourAndEightKilobytesNeedsAnAdvancedParameter() {
        StringBuilder json = new StringBuilder("{\"models\": {");
        for (int i = 0; i < 60; i++) {
            json.append(i == 0 ? "" : ",").append("\"model-").append(i)
                    .append("\": {\"modelId\": \"amazon.nova-lite-v1:0\", \"quotas\": {\"tpm\": 1000000},")
                    .append(" \"maxTokens\": 4096, \"shards\": 2}");
        }
        json.append("}}");
        assertThat(ModelsConfiguration.parse(Path.of("big.json"), json.toString()).needsAdvancedParameter()).isTrue();
    }
}
