package dev.trafficshaper.infra;

import dev.trafficshaper.infra.api.FrontDoorThrottles;
import dev.trafficshaper.infra.api.RequestApi;
import dev.trafficshaper.infra.api.RequestApiProps;
import dev.trafficshaper.infra.compute.ShaperFunctions;
import dev.trafficshaper.infra.compute.ShaperFunctionsProps;
import dev.trafficshaper.infra.config.InferenceProfileGeography;
import dev.trafficshaper.infra.config.InvalidDeploymentException;
import dev.trafficshaper.infra.config.ResourceNames;
import dev.trafficshaper.infra.lifecycle.DrainSchedule;
import dev.trafficshaper.infra.lifecycle.RequestLifecycle;
import dev.trafficshaper.infra.lifecycle.RequestLifecycleProps;
import dev.trafficshaper.infra.observability.ShaperObservability;
import dev.trafficshaper.infra.observability.ShaperObservabilityProps;
import dev.trafficshaper.infra.storage.PayloadBucket;
import dev.trafficshaper.infra.storage.RequestTable;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.Tags;
import software.amazon.awscdk.Token;
import software.amazon.awscdk.services.events.EventBus;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.kms.Key;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.secretsmanager.SecretStringGenerator;
import software.constructs.Construct;

/**
 * The whole shaper as one construct, to put in any stack: table, payload bucket, functions,
 * request lifecycle, drain schedule, API, outcome bus and observability, all encrypted with one
 * customer-managed key (created, or the one the props bring), and the cdk-nag findings the shaper
 * accepts suppressed on its own resources only ({@link ShaperNagSuppressions}).
 *
 * <p>{@link TrafficShaperStack} holds one under the id {@code Default}, which keeps the logical
 * ids of a stack deployed before the construct existed. docs/embedding.md shows an app of one's own.
 */
public final class TrafficShaper extends Construct {

    private static final int MAX_NAME_PREFIX = 40;

    private final TrafficShaperProps props;
    private final IKey key;
    private final RequestTable table;
    private final PayloadBucket payloads;
    private final EventBus outcomes;
    private final Secret webhookSecret;
    private final ShaperFunctions functions;
    private final RequestLifecycle lifecycle;
    private final DrainSchedule drainSchedule;
    private final RequestApi api;
    private final ShaperObservability observability;
    private final FrontDoorThrottles throttles;

    public TrafficShaper(Construct scope, String id, TrafficShaperProps props) {
        super(scope, id);
        this.props = props;
        boolean production = props.stage().production();
        Stack stack = Stack.of(this);
        checkRegion(stack);
        ResourceNames names = new ResourceNames(namePrefix(stack, id, props));
        Tags.of(this).add("application", "traffic-shaper");
        Tags.of(this).add("stage", props.stage().name());

        this.key = props.existingKey() != null ? props.existingKey() : Key.Builder.create(this, "DataKey")
                .description("Encrypts the Traffic Shaper's table, payloads, webhook secret and alarm topic")
                .enableKeyRotation(true)
                .removalPolicy(production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
                .pendingWindow(Duration.days(production ? 30 : 7))
                .build();
        this.table = props.existingTable() != null ? RequestTable.existing(this, "Requests", props.existingTable())
                : new RequestTable(this, "Requests", key, production);
        this.payloads = new PayloadBucket(this, "Payloads", key, props.payloadRetentionDays(), production);
        this.outcomes = EventBus.Builder.create(this, "Outcomes")
                .eventBusName(names.eventBusName())
                .description("One event per request that reached a terminal outcome")
                .build();
        this.webhookSecret = Secret.Builder.create(this, "WebhookSigningKey")
                .description("HMAC-SHA256 key that signs the shaper's webhooks")
                .encryptionKey(key)
                .generateSecretString(SecretStringGenerator.builder()
                        .passwordLength(64)
                        .excludePunctuation(true)
                        .build())
                .removalPolicy(production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
                .build();

        this.functions = new ShaperFunctions(this, "Functions", new ShaperFunctionsProps(
                names, props.code().code(), props.models(), table, payloads, key, outcomes, webhookSecret,
                props.stage()));
        this.lifecycle = new RequestLifecycle(this, "Lifecycle", new RequestLifecycleProps(
                names.stateMachineName(), props.statemachinesDirectory(),
                functions.budgetManager().alias(), functions.finalizer().alias(),
                props.models().longestDeadlineSeconds(), props.models().longestDeadlineModel().key(),
                production));
        this.drainSchedule = new DrainSchedule(this, "DrainSchedule", functions.queueProcessor().alias());
        this.throttles = FrontDoorThrottles.size(props.quotas(), props.throttles());
        this.api = new RequestApi(this, "Http", new RequestApiProps(
                props.stage().name(), functions.submit().alias(), functions.status().alias(), props.models(),
                throttles, props.webAcl(), production));
        this.observability = new ShaperObservability(this, "Observability", new ShaperObservabilityProps(
                names.prefix(), props.models(), functions, lifecycle.stateMachine(), api.api(), table.table(),
                props.quotas().lambdaConcurrency(), key, props.alarmEmail()));

        ShaperNagSuppressions.of(this).apply();
        outputs();
    }

    /**
     * A geographic inference profile works only from its geography's regions. The check needs the
     * region at synth: an environment-agnostic stack is checked at its first request instead, and
     * the synth says so.
     */
    private void checkRegion(Stack stack) {
        if (Token.isUnresolved(stack.getRegion())) {
            Annotations.of(this).addInfo("The stack's region is not known at synth (-c region or"
                    + " CDK_DEFAULT_REGION): the models' inference profiles are not checked against it");
            return;
        }
        InferenceProfileGeography.check(props.models(), stack.getRegion());
    }

    private static String namePrefix(Stack stack, String id, TrafficShaperProps props) {
        if (props.namePrefix() != null) {
            return props.namePrefix();
        }
        String prefix = id.equals("Default") ? stack.getStackName() : stack.getStackName() + "-" + id;
        if (Token.isUnresolved(prefix) || prefix.length() > MAX_NAME_PREFIX) {
            throw new InvalidDeploymentException("TrafficShaper '" + id + "': the default name prefix '" + prefix
                    + "' is not a plain name of at most " + MAX_NAME_PREFIX + " characters; set"
                    + " TrafficShaperProps.namePrefix");
        }
        return prefix;
    }

    private void outputs() {
        output("ApiUrl", api.baseUrl(), "Base URL of the shaper's API (SigV4, service execute-api)");
        output("ApiStageUrl", api.stageUrl(), "The API's stage URL: the Java client's base URI");
        output("StateMachineArn", lifecycle.stateMachine().getStateMachineArn(), "The request lifecycle");
        output("TableName", table.tableName(), "The single table");
        output("PayloadBucketName", payloads.bucketName(), "Prompts and results");
        output("EventBusName", outcomes.getEventBusName(), "Terminal-outcome events");
        output("WebhookSecretArn", webhookSecret.getSecretArn(), "HMAC-SHA256 key of the webhook signature");
        output("DashboardName", observability.dashboard().getDashboardName(), "CloudWatch dashboard");
        output("AlarmTopicArn", observability.alarmTopic().getTopicArn(), "Subscribe here to receive alarms");
    }

    private void output(String id, String value, String description) {
        CfnOutput.Builder.create(this, id).value(value).description(description).build();
    }

    public TrafficShaperProps props() {
        return props;
    }

    public IKey key() {
        return key;
    }

    public RequestTable table() {
        return table;
    }

    public PayloadBucket payloads() {
        return payloads;
    }

    public EventBus outcomes() {
        return outcomes;
    }

    public Secret webhookSecret() {
        return webhookSecret;
    }

    public ShaperFunctions functions() {
        return functions;
    }

    public RequestLifecycle lifecycle() {
        return lifecycle;
    }

    public DrainSchedule drainSchedule() {
        return drainSchedule;
    }

    public RequestApi api() {
        return api;
    }

    public ShaperObservability observability() {
        return observability;
    }

    /** The API's method throttles as sized for this deployment. */
    public FrontDoorThrottles throttles() {
        return throttles;
    }
}
