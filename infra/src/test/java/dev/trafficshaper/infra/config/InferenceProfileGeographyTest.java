package dev.trafficshaper.infra.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InferenceProfileGeographyTest {

    @TempDir
    Path directory;

    private ModelsConfiguration model(String modelId) throws IOException {
        return ModelsConfiguration.read(Files.writeString(directory.resolve("models.json"), "{\"models\": {\"m\": {"
                + "\"modelId\": \"" + modelId + "\", \"quotas\": {\"tpm\": 1000000}, \"maxTokens\": 4096}}}"));
    }

    @ParameterizedTest
    @CsvSource({
            "us.anthropic.claude-sonnet-4-20250514-v1:0, us-east-1",
            "us.amazon.nova-lite-v1:0, us-west-2",
            "eu.amazon.nova-lite-v1:0, eu-central-1",
            "apac.amazon.nova-lite-v1:0, ap-southeast-1",
            "jp.anthropic.claude-sonnet-4-5-20250929-v1:0, ap-northeast-1",
            "au.anthropic.claude-sonnet-4-5-20250929-v1:0, ap-southeast-2",
            "us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0, us-gov-west-1",
            "global.anthropic.claude-sonnet-4-20250514-v1:0, eu-west-1",
            "global.anthropic.claude-sonnet-4-20250514-v1:0, sa-east-1",
            "amazon.nova-lite-v1:0, eu-west-1"})
    void aProfileOfTheRegionsGeographyOrAGlobalOneIsAccepted(String modelId, String region) throws IOException {
        ModelsConfiguration models = model(modelId);
        assertThatCode(() -> InferenceProfileGeography.check(models, region)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @CsvSource({
            "us.amazon.nova-lite-v1:0, eu-west-1, a US region",
            "us.amazon.nova-lite-v1:0, us-gov-west-1, a US region",
            "eu.amazon.nova-lite-v1:0, us-east-1, a European region",
            "apac.amazon.nova-lite-v1:0, eu-west-1, an Asia Pacific region",
            "jp.anthropic.claude-sonnet-4-5-20250929-v1:0, ap-southeast-1, ap-northeast-1 or ap-northeast-3",
            "au.anthropic.claude-sonnet-4-5-20250929-v1:0, us-east-1, ap-southeast-2 or ap-southeast-4",
            "us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0, us-east-1, a GovCloud (US) region"})
    void aProfileOutsideItsGeographyIsRefusedAtSynth(String modelId, String region, String where) throws IOException {
        ModelsConfiguration models = model(modelId);
        assertThatThrownBy(() -> InferenceProfileGeography.check(models, region))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("model m: " + modelId)
                .hasMessageContaining("only to callers in " + where)
                .hasMessageContaining("the stack deploys to " + region);
    }
}
