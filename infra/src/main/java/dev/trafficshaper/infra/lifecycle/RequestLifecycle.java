package dev.trafficshaper.infra.lifecycle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.infra.config.InvalidDeploymentException;
import dev.trafficshaper.infra.config.ResourceNames;
import dev.trafficshaper.lifecycle.AdmitTimeout;
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
 * The Standard state machine that holds each request from submission to its terminal state, read
 * from {@code statemachines/request-lifecycle.asl.json}. CloudFormation fills the definition's
 * {@code ${...}} placeholders with the function alias ARNs. Delivery is no step of it: whoever
 * writes the terminal state hands the delivery off before it returns the task token, so the happy
 * path is one state transition.
 *
 * <p>The Admit task waits with {@code .waitForTaskToken}; its timeout is per request
 * ({@code TimeoutSecondsPath} {@value #ADMIT_TIMEOUT_PATH}, which Submit sets to the request's own
 * deadline plus {@value #ADMIT_GRACE_SECONDS} s, the sweeper's bound with room to spare), so the
 * sweeper, not the timeout, normally decides when a request has missed its deadline, and no
 * execution outlives its deadline by more than the grace.
 */
public final class RequestLifecycle extends Construct {

    public static final String DEFINITION_FILE = "request-lifecycle.asl.json";
    /** The class-path resource holding {@link #DEFINITION_FILE}. */
    public static final String BUNDLED_DEFINITION = "dev/trafficshaper/infra/statemachines/" + DEFINITION_FILE;
    public static final long ADMIT_GRACE_SECONDS = AdmitTimeout.DEFAULT_GRACE_SECONDS;
    /** Longest run of a Standard execution. */
    public static final long STANDARD_EXECUTION_LIMIT_SECONDS = AdmitTimeout.STANDARD_EXECUTION_LIMIT_SECONDS;
    /** Where the Admit task reads its timeout: the execution input's field, set by Submit. */
    public static final String ADMIT_TIMEOUT_PATH = "$.admitTimeoutSeconds";
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
        admitTimeoutSeconds(props.longestDeadlineSeconds(), props.longestDeadlineModel());
        Map<String, String> substitutions = Map.of(
                "Partition", Stack.of(this).getPartition(),
                "BudgetManagerFunctionArn", props.budgetManager().getFunctionArn(),
                "FinalizerFunctionArn", props.finalizer().getFunctionArn());
        Path file = props.definitionDirectory() == null ? Path.of(BUNDLED_DEFINITION)
                : props.definitionDirectory().resolve(DEFINITION_FILE);
        String definition = props.definitionDirectory() == null ? readBundledDefinition()
                : readDefinition(props.definitionDirectory());
        checkDefinition(file, definition, substitutions.keySet());
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
                .resources(List.of(props.budgetManager().getFunctionArn(), props.finalizer().getFunctionArn()))
                .build());
    }

    /**
     * The longest time Admit waits for its task token: the longest deadline any model allows plus
     * {@value #ADMIT_GRACE_SECONDS} s ({@code AdmitTimeout}, which Submit applies per request). A
     * Standard execution may run for a year at most.
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
     * or a task that waits for its token with any timeout but the request's own
     * ({@code "TimeoutSecondsPath": "}{@value #ADMIT_TIMEOUT_PATH}{@code "}): none would hold a lost
     * token's request for a year, and a fixed one would hold every request as long as the longest
     * deadline allows, or fail requests the drainer may still admit.
     */
    static void checkDefinition(Path file, String definition, Set<String> substituted) {
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
            String rendered = PLACEHOLDER.matcher(definition).replaceAll("placeholder");
            states = new ObjectMapper().readTree(rendered).path("States");
        } catch (JsonProcessingException e) {
            throw new InvalidDeploymentException(file + " is not valid JSON once its placeholders are filled in: "
                    + e.getOriginalMessage(), e);
        }
        int waiting = 0;
        String fix = "; use \"TimeoutSecondsPath\": \"" + ADMIT_TIMEOUT_PATH + "\", which Submit sets to the"
                + " request's own deadline plus " + ADMIT_GRACE_SECONDS + " s";
        for (Map.Entry<String, JsonNode> state : states.properties()) {
            if (!state.getValue().path("Resource").asText().endsWith(".waitForTaskToken")) {
                continue;
            }
            waiting++;
            JsonNode path = state.getValue().get("TimeoutSecondsPath");
            if (state.getValue().has("TimeoutSeconds")) {
                throw new InvalidDeploymentException(file + ": state " + state.getKey() + " waits for its task token"
                        + " a fixed TimeoutSeconds, the same for every request whatever its deadline" + fix);
            }
            if (path == null || !ADMIT_TIMEOUT_PATH.equals(path.asText())) {
                throw new InvalidDeploymentException(file + ": state " + state.getKey() + " waits for its task token"
                        + (path == null ? " without a timeout, so a lost token would hold the request for a year"
                        : " with its timeout read from " + path.asText() + ", which Submit does not set") + fix);
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
