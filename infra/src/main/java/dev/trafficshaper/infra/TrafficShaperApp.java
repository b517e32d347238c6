package dev.trafficshaper.infra;

import dev.trafficshaper.infra.config.DeploymentSettings;
import dev.trafficshaper.infra.config.InvalidDeploymentException;
import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import io.github.cdklabs.cdknag.NagPackProps;
import java.nio.file.Path;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.StackProps;

/**
 * The CDK app {@code cdk.json} runs: one {@link TrafficShaperStack} per invocation, configured by
 * context ({@code -c stage=prod}, {@code -c modelsFile=...}; see {@link DeploymentSettings}), with
 * the cdk-nag AWS Solutions checks applied so a deployment that breaks them fails at synth.
 */
public final class TrafficShaperApp {

    private TrafficShaperApp() {
    }

    public static void main(String[] args) {
        App app = new App();
        try {
            DeploymentSettings settings = DeploymentSettings.fromContext(
                    key -> app.getNode().tryGetContext(key), Path.of(""));
            create(app, settings, Path.of("statemachines"));
        } catch (InvalidDeploymentException e) {
            System.err.println("Cannot synthesize the Traffic Shaper: " + e.getMessage());
            System.exit(1);
        }
        app.synth();
    }

    /** Builds the stack and applies the AWS Solutions checks; the tests use this too. */
    public static TrafficShaperStack create(App app, DeploymentSettings settings, Path statemachinesDirectory) {
        StackProps.Builder props = StackProps.builder()
                .description("Traffic Shaper for Amazon Bedrock (" + settings.stage().name() + ")");
        if (settings.region() != null) {
            props.env(Environment.builder().region(settings.region()).build());
        }
        TrafficShaperStack stack = new TrafficShaperStack(app, settings.stackName(), props.build(), settings,
                statemachinesDirectory);
        Aspects.of(app).add(new AwsSolutionsChecks(NagPackProps.builder().verbose(true).build()));
        return stack;
    }
}
