package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.infra.config.InvalidDeploymentException;
import dev.trafficshaper.infra.config.ModelsConfiguration;
import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.cxapi.CloudAssembly;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.s3.Bucket;

/** A user's CDK app with a {@link TrafficShaper} in one of its own stacks, beside another stack. */
class TrafficShaperEmbeddingTest {

    private static TrafficShaperProps.Builder props() {
        return TrafficShaperProps.builder()
                .models(ModelsConfiguration.read(SynthesizedStacks.MODELS_FILE))
                .code(FunctionCode.fromPath(SynthesizedStacks.functionsJar()));
    }

    @Test
    void theConstructSynthesizesInsideAUsersStackNextToAnotherWithItsSuppressionsOnItsOwnResources() {
        App app = new App();
        Stack other = new Stack(app, "Website");
        new Bucket(other, "Assets");
        Stack mine = new Stack(app, "Inference", StackProps.builder()
                .env(Environment.builder().region("us-east-1").build()).build());
        Bucket ownBucket = new Bucket(mine, "Reports");
        TrafficShaper shaper = new TrafficShaper(mine, "Shaper", props().alarmEmail("ops@example.com").build());
        Aspects.of(app).add(new AwsSolutionsChecks());

        CloudAssembly assembly = app.synth();
        Template template = Template.fromStack(mine);
        template.resourceCountIs("AWS::StepFunctions::StateMachine", 1);
        template.resourceCountIs("AWS::Lambda::Function", 7);
        template.hasResourceProperties("AWS::Lambda::Function", Map.of("FunctionName", "Inference-Shaper-submit"));
        for (String method : List.of("POST", "GET")) {
            template.hasResourceProperties("AWS::ApiGateway::Stage", Map.of("MethodSettings", Match.arrayWith(List.of(
                    Match.objectLike(Map.of("HttpMethod", method, "ThrottlingRateLimit", method.equals("POST")
                            ? 270 : 1350))))));
        }
        assertThat(template.findOutputs("*").keySet()).anyMatch(output -> output.startsWith("ShaperApiStageUrl"));
        assertThat(shaper.lifecycle().stateMachine()).isNotNull();

        assertThat(SynthesizedStacks.findings(assembly, mine.getStackName()))
                .filteredOn(finding -> finding.text().contains("AwsSolutions-"))
                .extracting(SynthesizedStacks.Finding::path)
                .isNotEmpty()
                .allMatch(path -> path.contains("/Reports"), "only the user's own bucket is reported");
        assertThat(ownBucket).isNotNull();
        assertThat(SynthesizedStacks.findings(assembly, other.getStackName()))
                .extracting(SynthesizedStacks.Finding::text)
                .anyMatch(text -> text.contains("AwsSolutions-S1"));
    }

    @Test
    void anExistingTableIsUsedInsteadOfANewOne() {
        App app = new App();
        Stack mine = new Stack(app, "Mine");
        Table table = Table.Builder.create(mine, "Shared")
                .partitionKey(software.amazon.awscdk.services.dynamodb.Attribute.builder().name("pk")
                        .type(software.amazon.awscdk.services.dynamodb.AttributeType.STRING).build())
                .sortKey(software.amazon.awscdk.services.dynamodb.Attribute.builder().name("sk")
                        .type(software.amazon.awscdk.services.dynamodb.AttributeType.STRING).build())
                .build();
        new TrafficShaper(mine, "Shaper", props().existingTable(table).build());
        Template template = Template.fromStack(mine);
        template.resourceCountIs("AWS::DynamoDB::Table", 1);
        template.hasResourceProperties("AWS::Lambda::Function", Map.of("Environment", Map.of("Variables",
                Match.objectLike(Map.of("TABLE_NAME", Map.of("Ref", Match.stringLikeRegexp("Shared.*")))))));
    }

    @Test
    void aUsInferenceProfileInAEuropeanStackIsRefusedAtSynth() {
        App app = new App();
        Stack mine = new Stack(app, "Frankfurt", StackProps.builder()
                .env(Environment.builder().region("eu-central-1").build()).build());
        assertThatThrownBy(() -> new TrafficShaper(mine, "Shaper", props().build()))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("model claude-sonnet: us.anthropic.claude-sonnet-4-20250514-v1:0")
                .hasMessageContaining("the stack deploys to eu-central-1");
    }

    @Test
    void theLifecycleDefinitionTravelsInTheInfraJar() {
        assertThat(TrafficShaperEmbeddingTest.class.getClassLoader()
                .getResource(dev.trafficshaper.infra.lifecycle.RequestLifecycle.BUNDLED_DEFINITION)).isNotNull();
    }
}
