package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.infra.config.DeploymentSettings;
import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.infra.config.Stage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class LargeModelsFileTest {

    private static Template template;

    @BeforeAll
    static void synthesizeWithAModelsFileTooLargeForTheEnvironment(@TempDir Path directory) throws IOException {
        StringBuilder json = new StringBuilder("{\"models\": {");
        for (int i = 0; i < 40; i++) {
            json.append(i == 0 ? "" : ",").append("\"model-").append(i)
                    .append("\": {\"modelId\": \"amazon.nova-lite-v1:0\", \"quotas\": {\"tpm\": 1000000},")
                    .append(" \"maxTokens\": 4096, \"shards\": 2}");
        }
        Path file = Files.writeString(directory.resolve("models.json"), json.append("}}").toString());
        ModelsConfiguration models = ModelsConfiguration.read(file);
        assertThat(models.fitsInline()).isFalse();
        DeploymentSettings settings = DeploymentSettings.builder(Stage.named("big"), models,
                SynthesizedStacks.functionsJar()).build();
        template = Template.fromStack(TrafficShaperApp.create(SynthesizedStacks.app(), settings,
                SynthesizedStacks.STATEMACHINES));
    }

    @Test
    void modelsGoToAnSsmParameterNamedInTheEnvironment() {
        template.hasResourceProperties("AWS::SSM::Parameter", Map.of(
                "Name", "/TrafficShaper-big/models",
                "Type", "String",
                "Tier", "Standard"));
        template.allResourcesProperties("AWS::Lambda::Function", Map.of("Environment", Map.of("Variables",
                Match.objectLike(Map.of(
                        "MODELS_PARAMETER", Map.of("Ref", Match.anyValue()),
                        "MODELS_CONFIG", Match.absent())))));
    }

    @Test
    void everyFunctionMayReadOnlyThatParameter() {
        assertThat(IamPolicies.of(template).statementsWithAction("ssm:GetParameter"))
                .hasSize(7)
                .allSatisfy(statement -> assertThat(statement.resources().toString()).contains(":parameter", "FunctionsModelsParameter"));
    }

    @Test
    void drainerReservationGrowsWithTheNumberOfModels() {
        template.hasResourceProperties("AWS::Lambda::Function", Map.of(
                "FunctionName", "TrafficShaper-big-queue-processor",
                "ReservedConcurrentExecutions", 3 * 40 + 2));
    }
}
