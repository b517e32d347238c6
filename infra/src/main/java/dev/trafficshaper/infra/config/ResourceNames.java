package dev.trafficshaper.infra.config;

import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.Stack;
import software.constructs.Construct;

/**
 * Physical names of the resources that refer to each other in both directions. Knowing these names
 * up front lets a function hold the ARN of its own alias, of the state machine that invokes it, or
 * of the function that wakes it, without a CloudFormation reference and so without a dependency
 * cycle.
 */
public record ResourceNames(String prefix) {

    public static final String ALIAS = "live";
    private static final int MAX_FUNCTION_NAME = 64;

    public ResourceNames {
        if (prefix == null || prefix.isBlank() || prefix.length() > 40) {
            throw new InvalidDeploymentException("resource name prefix must be 1-40 characters, was '" + prefix + "'");
        }
    }

    public String functionName(String purpose) {
        String name = prefix + "-" + purpose;
        if (name.length() > MAX_FUNCTION_NAME) {
            throw new InvalidDeploymentException("function name '" + name + "' is longer than 64 characters");
        }
        return name;
    }

    /** The ARN of the {@value #ALIAS} alias, the only qualifier anything invokes. */
    public String functionAliasArn(Construct scope, String purpose) {
        return Stack.of(scope).formatArn(ArnComponents.builder()
                .service("lambda")
                .resource("function")
                .resourceName(functionName(purpose) + ":" + ALIAS)
                .arnFormat(ArnFormat.COLON_RESOURCE_NAME)
                .build());
    }

    public String stateMachineName() {
        return prefix + "-request-lifecycle";
    }

    public String stateMachineArn(Construct scope) {
        return Stack.of(scope).formatArn(ArnComponents.builder()
                .service("states")
                .resource("stateMachine")
                .resourceName(stateMachineName())
                .arnFormat(ArnFormat.COLON_RESOURCE_NAME)
                .build());
    }

    /** The ARNs of the state machine's executions ({@code execution:<name>:*}). */
    public String executionsArn(Construct scope) {
        return Stack.of(scope).formatArn(ArnComponents.builder()
                .service("states")
                .resource("execution")
                .resourceName(stateMachineName() + ":*")
                .arnFormat(ArnFormat.COLON_RESOURCE_NAME)
                .build());
    }

    /**
     * A log group name that starts with {@code base} and ends with the id CloudFormation gave this
     * stack when it created it. A production stage keeps its log groups after a {@code cdk destroy}
     * (they hold the audit trail); with a fixed name the next stack of the same name could not
     * create its own. The stack id's last segment is a UUID unique to each creation.
     */
    public static String uniqueLogGroupName(String base) {
        return base + "-" + Fn.select(2, Fn.split("/", Aws.STACK_ID));
    }

    public String eventBusName() {
        return prefix + "-outcomes";
    }
}
