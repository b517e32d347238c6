package dev.trafficshaper.loadtest.stack;

import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import io.github.cdklabs.cdknag.NagPackProps;
import java.nio.file.Path;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.StackProps;

/**
 * The load-test CDK app: one {@link TrafficShaperLoadTestStack}, deployed beside a shaper stack and
 * pointed at it by two parameters, with the cdk-nag AWS Solutions checks applied. Synthesize from the
 * repository root:
 * <pre>
 *   npx --no-install cdk synth --app "java -cp 'loadtest/stack/target/classes:loadtest/stack/target/dependency/*'
 *       dev.trafficshaper.loadtest.stack.LoadTestApp" --output loadtest/stack/cdk.out
 * </pre>
 */
public final class LoadTestApp {

    private LoadTestApp() {
    }

    public static void main(String[] args) {
        App app = new App();
        try {
            create(app, LoadTestSettings.fromContext(key -> app.getNode().tryGetContext(key)), Path.of("statemachines"));
        } catch (IllegalArgumentException e) {
            System.err.println("Cannot synthesize the load-test stack: " + e.getMessage());
            System.exit(1);
        }
        app.synth();
    }

    public static TrafficShaperLoadTestStack create(App app, LoadTestSettings settings, Path statemachines) {
        TrafficShaperLoadTestStack stack = new TrafficShaperLoadTestStack(app, settings.stackName(), StackProps.builder()
                .description("Traffic Shaper load test: Lambda workers fanned out by a Step Functions Distributed Map")
                .build(), settings, statemachines);
        Aspects.of(app).add(new AwsSolutionsChecks(NagPackProps.builder().verbose(true).build()));
        return stack;
    }
}
