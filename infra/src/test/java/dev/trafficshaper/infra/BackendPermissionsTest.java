package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.infra.config.DeploymentSettings;
import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.infra.config.Stage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Template;

/**
 * IAM per backend: bedrock-runtime models (Converse and InvokeModel) need bedrock:InvokeModel on
 * exactly themselves, bedrock-mantle models bedrock-mantle:CreateInference in the account's
 * projects, and CountTokens is granted to the Submit function only for the models that use it.
 */
class BackendPermissionsTest {

    private static Template template;

    @BeforeAll
    static void synthesize(@TempDir Path directory) throws IOException {
        Path file = Files.writeString(directory.resolve("models.json"), """
                {"models": {
                  "native": {"modelId": "anthropic.claude-haiku-v1:0", "backend": "invoke-model",
                             "quotas": {"tpm": 100000}, "tokenCounting": "count-tokens"},
                  "chat": {"modelId": "openai.gpt-5.6", "backend": "mantle-chat-completions",
                           "quotas": {"inputTpm": 100000, "outputTpm": 10000}},
                  "messages": {"modelId": "anthropic.claude-sonnet-5", "backend": "mantle-messages",
                               "quotas": {"inputTpm": 100000, "outputTpm": 10000}}}}""");
        DeploymentSettings settings = DeploymentSettings.builder(Stage.named("backends"), ModelsConfiguration.read(file),
                SynthesizedStacks.functionsJar()).build();
        template = Template.fromStack(TrafficShaperApp.create(new App(), settings, SynthesizedStacks.STATEMACHINES));
    }

    @Test
    void theProcessorsInvokeTheRuntimeModelsAndCreateMantleInferences() {
        for (String caller : List.of("FunctionsBedrockProcessor", "FunctionsQueueProcessor")) {
            List<IamPolicies.Statement> invoke = IamPolicies.of(template).statementsWithAction("bedrock:InvokeModel")
                    .stream().filter(s -> s.policy().startsWith(caller)).toList();
            assertThat(invoke).as(caller).singleElement().satisfies(s -> assertThat(s.resources().toString())
                    .contains("foundation-model/anthropic.claude-haiku-v1:0")
                    .doesNotContain("openai.gpt-5.6").doesNotContain("claude-sonnet-5"));
        }

        List<IamPolicies.Statement> mantle = IamPolicies.of(template)
                .statementsWithAction("bedrock-mantle:CreateInference");
        assertThat(mantle).as("the Bedrock Processor, and the drainer that makes its calls itself").hasSize(2)
                .anySatisfy(s -> assertThat(s.policy()).startsWith("FunctionsBedrockProcessor"))
                .anySatisfy(s -> assertThat(s.policy()).startsWith("FunctionsQueueProcessor"))
                .allSatisfy(s -> {
                    assertThat(s.actions()).containsExactly("bedrock-mantle:CreateInference");
                    assertThat(s.resources().toString()).contains(":bedrock-mantle:").contains(":project/*");
                });
    }

    @Test
    void onlyTheCountedModelsMayBeCountedAndOnlyBySubmit() {
        assertThat(IamPolicies.of(template).statementsWithAction("bedrock:CountTokens")).singleElement()
                .satisfies(s -> {
                    assertThat(s.policy()).startsWith("FunctionsSubmit");
                    assertThat(s.resources().toString()).contains("foundation-model/anthropic.claude-haiku-v1:0");
                });
    }
}
