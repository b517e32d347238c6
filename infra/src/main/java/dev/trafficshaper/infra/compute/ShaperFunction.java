package dev.trafficshaper.infra.compute;

import dev.trafficshaper.infra.config.ResourceNames;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.lambda.Tracing;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.constructs.Construct;

/**
 * A Java handler from the functions jar as the shaper runs it: {@code java21} on arm64, SnapStart
 * on published versions, invoked only through the {@value ResourceNames#ALIAS} alias, X-Ray
 * tracing on, its own log group, and a role that starts with nothing but writing to that group.
 */
public final class ShaperFunction extends Construct {

    private final FunctionSpec spec;
    private final Role role;
    private final LogGroup logGroup;
    private final Function function;
    private final Alias alias;

    public ShaperFunction(Construct scope, String id, String functionName, FunctionSpec spec, Code code,
                          Map<String, String> environment, RetentionDays logRetention, RemovalPolicy removal) {
        super(scope, id);
        this.spec = spec;
        this.logGroup = LogGroup.Builder.create(this, "Logs")
                .logGroupName(ResourceNames.uniqueLogGroupName("/aws/lambda/" + functionName))
                .retention(logRetention)
                .removalPolicy(removal)
                .build();
        this.role = Role.Builder.create(this, "Role")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Runs the " + spec.purpose() + " function")
                .build();
        role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(List.of("logs:CreateLogStream", "logs:PutLogEvents"))
                .resources(List.of(logGroup.getLogGroupArn()))
                .build());
        this.function = Function.Builder.create(this, "Function")
                .functionName(functionName)
                .description(spec.description())
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .code(code)
                .handler(spec.handler())
                .memorySize(spec.memoryMb())
                .timeout(spec.timeout())
                .reservedConcurrentExecutions(spec.reservedConcurrency())
                .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
                .tracing(Tracing.ACTIVE)
                .environment(environment)
                .role(role)
                .logGroup(logGroup)
                .build();
        this.alias = Alias.Builder.create(this, "Alias")
                .aliasName(ResourceNames.ALIAS)
                .version(function.getCurrentVersion())
                .build();
        Annotations.of(function).acknowledgeWarning("@aws-cdk/aws-lambda:snapStartRequirePublish",
                "every deployment publishes a version through the alias");
    }

    public void allow(PolicyStatement statement) {
        role.addToPrincipalPolicy(statement);
    }

    public FunctionSpec spec() {
        return spec;
    }

    public Role role() {
        return role;
    }

    public Function function() {
        return function;
    }

    public Alias alias() {
        return alias;
    }

    public LogGroup logGroup() {
        return logGroup;
    }
}
