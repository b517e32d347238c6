package dev.trafficshaper.infra.lifecycle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.infra.config.InvalidDeploymentException;
import dev.trafficshaper.infra.config.ResourceNames;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    /** The class-path resource holding {@link #DEFINITION_FILE}. */
    public static final String BUNDLED_DEFINITION = "dev/trafficshaper/infra/statemachines/" + DEFINITION_FILE;
    public static final long ADMIT_GRACE_SECONDS = 300;
    /** Longest run of a Standard execution. */
    public static final long STANDARD_EXECUTION_LIMIT_SECONDS = 365L * 24 * 3600;
    static final String ADMIT_TIMEOUT = "AdmitTimeoutSeconds";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9]+)}");

    private final StateMachine stateMachine;
    private final LogGroup logGroup;

    public RequestLifecycle(Construct scope, String id, RequestLifecycleProps props) {
        super(scope, id);
        this.logGroup = LogGroup.Builder.create(this, "Logs")
                .logGroupName(ResourceNames.uniqueLogGroupName("/aws/vendedlogs/states/"
                        + props.stateMachineName()))
                .retention(props.production() ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS)
                .removalPolicy(props.production() ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
                .build();
        long admitTimeout = admitTimeoutSeconds(props.longestDeadlineSeconds(), props.longestDeadlineModel());
        Map<String, String> substitutions = Map.of(
                "Partition", Stack.of(this).getPartition(),
                "BudgetManagerFunctionArn", props.budgetManager().getFunctionArn(),
                "FinalizerFunctionArn", props.finalizer().getFunctionArn(),
                "NotifierFunctionArn", props.notifier().getFunctionArn(),
                ADMIT_TIMEOUT, Long.toString(admitTimeout));
        Path file = props.definitionDirectory() == null ? Path.of(BUNDLED_DEFINITION)
                : props.definitionDirectory().resolve(DEFINITION_FILE);
        String definition = props.definitionDirectory() == null ? readBundledDefinition()
                : readDefinition(props.definitionDirectory());
        checkDefinition(file, definition, substitutions.keySet(), admitTimeout, props.longestDeadlineSeconds(),
                props.longestDeadlineModel());
        this.stateMachine = StateMachine.Builder.create(this, "StateMachine")
                .stateMachineName(props.stateMachineName())
                .stateMachineType(StateMachineType.STANDARD)
                .definitionBody(DefinitionBody.fromString(definition))
                .definitionSubstitutions(substitutions)
                .tracingEnabled(true)
                // ERROR, not ALL: a Standard execution keeps its full history for 90 days anyway, and
                // ALL logs ~1.5 KB per transition on every request (docs/cost-model.md)
                .logs(LogOptions.builder()
                        .destination(logGroup)
                        .level(LogLevel.ERROR)
                        .includeExecutionData(false)
                        .build())
                .build();
        stateMachine.addToRolePolicy(PolicyStatement.Builder.create()
                .actions(List.of("lambda:InvokeFunction"))
                .resources(List.of(props.budgetManager().getFunctionArn(), props.finalizer().getFunctionArn(),
                        props.notifier().getFunctionArn()))
                .build());
    }

    /**
     * How long Admit waits for its task token: the longest deadline any model allows plus
     * {@value #ADMIT_GRACE_SECONDS} s for a Bedrock call already in flight. A Standard execution may
     * run for a year at most.
     */
    public static long admitTimeoutSeconds(long longestDeadlineSeconds, String model) {
        long timeout = longestDeadlineSeconds + ADMIT_GRACE_SECONDS;
        if (timeout > STANDARD_EXECUTION_LIMIT_SECONDS) {
            throw new InvalidDeploymentException("model " + model + ": maxDeadlineSeconds " + longestDeadlineSeconds
                    + " is too long: a request's execution waits that long plus " + ADMIT_GRACE_SECONDS
                    + " s, and a Standard Step Functions execution runs for at most "
                    + STANDARD_EXECUTION_LIMIT_SECONDS + " s (one year)");
        }
        return timeout;
    }

    /**
     * Refuses a definition the stack cannot deploy correctly: a placeholder the stack does not fill,
     * or a task that waits for its token without a timeout, or with one no longer than the longest
     * deadline (the timeout would fail requests the drainer may still admit).
     */
    static void checkDefinition(Path file, String definition, Set<String> substituted, long admitTimeout,
                                long longestDeadlineSeconds, String model) {
        Set<String> unknown = new TreeSet<>();
        Matcher placeholder = PLACEHOLDER.matcher(definition);
        while (placeholder.find()) {
            if (!substituted.contains(placeholder.group(1))) {
                unknown.add("${" + placeholder.group(1) + "}");
            }
        }
        if (!unknown.isEmpty()) {
            throw new InvalidDeploymentException(file + ": " + String.join(", ", unknown) + " is not filled in by the"
                    + " stack; it fills " + new TreeSet<>(substituted));
        }
        JsonNode states;
        try {
            String rendered = PLACEHOLDER.matcher(definition).replaceAll(match ->
                    match.group(1).equals(ADMIT_TIMEOUT) ? Long.toString(admitTimeout) : "placeholder");
            states = new ObjectMapper().readTree(rendered).path("States");
        } catch (JsonProcessingException e) {
            throw new InvalidDeploymentException(file + " is not valid JSON once its placeholders are filled in: "
                    + e.getOriginalMessage(), e);
        }
        int waiting = 0;
        for (Map.Entry<String, JsonNode> state : states.properties()) {
            if (!state.getValue().path("Resource").asText().endsWith(".waitForTaskToken")) {
                continue;
            }
            waiting++;
            JsonNode timeout = state.getValue().get("TimeoutSeconds");
            String fix = "; use \"TimeoutSeconds\": ${" + ADMIT_TIMEOUT + "}, which the stack sets to " + admitTimeout
                    + " s (the longest maxDeadlineSeconds plus " + ADMIT_GRACE_SECONDS + " s)";
            if (timeout == null || !timeout.canConvertToLong()) {
                throw new InvalidDeploymentException(file + ": state " + state.getKey() + " waits for its task token"
                        + " without a TimeoutSeconds, so a lost token would hold the request for a year" + fix);
            }
            if (timeout.asLong() <= longestDeadlineSeconds) {
                throw new InvalidDeploymentException(file + ": state " + state.getKey() + " waits for its task token"
                        + " at most " + timeout.asLong() + " s, but model " + model + " allows deadlines up to "
                        + longestDeadlineSeconds + " s (maxDeadlineSeconds)" + fix);
            }
        }
        if (waiting == 0) {
            throw new InvalidDeploymentException(file + ": no state waits for a task token (.waitForTaskToken); the"
                    + " Budget Manager and the Bedrock Processor answer one");
        }
    }

    /**
     * The definition the infra jar carries (the build copies {@code statemachines/} into it), so an
     * app that embeds the shaper needs no checkout.
     */
    static String readBundledDefinition() {
        try (InputStream in = RequestLifecycle.class.getClassLoader().getResourceAsStream(BUNDLED_DEFINITION)) {
            if (in == null) {
                throw new InvalidDeploymentException(BUNDLED_DEFINITION + " is not in the infra jar; pass the"
                        + " statemachines directory instead");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidDeploymentException("cannot read " + BUNDLED_DEFINITION + ": " + e.getMessage(), e);
        }
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
