package dev.trafficshaper.infra.lifecycle;

import dev.trafficshaper.infra.config.InvalidDeploymentException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.stepfunctions.DefinitionBody;
import software.amazon.awscdk.services.stepfunctions.LogLevel;
import software.amazon.awscdk.services.stepfunctions.LogOptions;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.amazon.awscdk.services.stepfunctions.StateMachineType;
import software.constructs.Construct;

/**
 * The Standard state machine that holds each request from submission to delivery, read from
 * {@code statemachines/request-lifecycle.asl.json}. CloudFormation fills the definition's
 * {@code ${...}} placeholders with the function alias ARNs and the admission timeout.
 *
 * <p>The Admit task waits with {@code .waitForTaskToken}; its timeout is the longest deadline any
 * model allows plus a grace period for a Bedrock call already in flight, so the drainer, not
 * the timeout, normally decides when a request has missed its deadline.
 */
public final class RequestLifecycle extends Construct {

    public static final String DEFINITION_FILE = "request-lifecycle.asl.json";
    public static final long ADMIT_GRACE_SECONDS = 300;

    private final StateMachine stateMachine;
    private final LogGroup logGroup;

    public RequestLifecycle(Construct scope, String id, RequestLifecycleProps props) {
        super(scope, id);
        this.logGroup = LogGroup.Builder.create(this, "Logs")
                .logGroupName("/aws/vendedlogs/states/" + props.stateMachineName())
                .retention(props.production() ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS)
                .removalPolicy(props.production() ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
                .build();
        long admitTimeout = props.longestDeadlineSeconds() + ADMIT_GRACE_SECONDS;
        this.stateMachine = StateMachine.Builder.create(this, "StateMachine")
                .stateMachineName(props.stateMachineName())
                .stateMachineType(StateMachineType.STANDARD)
                .definitionBody(DefinitionBody.fromString(readDefinition(props.definitionDirectory())))
                .definitionSubstitutions(Map.of(
                        "Partition", Stack.of(this).getPartition(),
                        "BudgetManagerFunctionArn", props.budgetManager().getFunctionArn(),
                        "FinalizerFunctionArn", props.finalizer().getFunctionArn(),
                        "NotifierFunctionArn", props.notifier().getFunctionArn(),
                        "AdmitTimeoutSeconds", Long.toString(admitTimeout)))
                .tracingEnabled(true)
                .logs(LogOptions.builder()
                        .destination(logGroup)
                        .level(LogLevel.ALL)
                        .includeExecutionData(false)
                        .build())
                .build();
        stateMachine.addToRolePolicy(PolicyStatement.Builder.create()
                .actions(List.of("lambda:InvokeFunction"))
                .resources(List.of(props.budgetManager().getFunctionArn(), props.finalizer().getFunctionArn(),
                        props.notifier().getFunctionArn()))
                .build());
    }

    static String readDefinition(Path directory) {
        Path file = directory.resolve(DEFINITION_FILE);
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new InvalidDeploymentException(file + ": cannot read the state machine definition ("
                    + e.getMessage() + ")", e);
        }
    }

    public StateMachine stateMachine() {
        return stateMachine;
    }

    public LogGroup logGroup() {
        return logGroup;
    }
}
