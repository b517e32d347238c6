package dev.trafficshaper.loadtest.stack;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.constructs.Construct;

/**
 * One handler of the load-test jar as a function: {@code java21} on arm64, its own log group, and a
 * role that starts with nothing but writing to that group; the stack grants the rest statement by
 * statement.
 */
final class HarnessFunction extends Construct {

    private final Role role;
    private final LogGroup logGroup;
    private final Function function;

    HarnessFunction(Construct scope, String id, String functionName, String handler, String description,
                    int memoryMb, Duration timeout, Code code, Map<String, String> environment) {
        super(scope, id);
        this.logGroup = LogGroup.Builder.create(this, "Logs")
                .logGroupName("/aws/lambda/" + functionName)
                .retention(RetentionDays.TWO_WEEKS)
                .removalPolicy(RemovalPolicy.DESTROY)
                .build();
        this.role = Role.Builder.create(this, "Role")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Runs the load test's " + id + " function")
                .build();
        role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(List.of("logs:CreateLogStream", "logs:PutLogEvents"))
                .resources(List.of(logGroup.getLogGroupArn()))
                .build());
        this.function = Function.Builder.create(this, "Function")
                .functionName(functionName)
                .description(description)
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .code(code)
                .handler(handler)
                .memorySize(memoryMb)
                .timeout(timeout)
                .environment(environment)
                .role(role)
                .logGroup(logGroup)
                .build();
    }

    void allow(PolicyStatement statement) {
        role.addToPrincipalPolicy(statement);
    }

    Role role() {
        return role;
    }

    Function function() {
        return function;
    }
}
