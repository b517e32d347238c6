package dev.trafficshaper.infra;

import dev.trafficshaper.infra.api.RequestApi;
import dev.trafficshaper.infra.api.RequestApiProps;
import dev.trafficshaper.infra.compute.ShaperFunctions;
import dev.trafficshaper.infra.compute.ShaperFunctionsProps;
import dev.trafficshaper.infra.config.DeploymentSettings;
import dev.trafficshaper.infra.config.ResourceNames;
import dev.trafficshaper.infra.lifecycle.DrainSchedule;
import dev.trafficshaper.infra.lifecycle.RequestLifecycle;
import dev.trafficshaper.infra.lifecycle.RequestLifecycleProps;
import dev.trafficshaper.infra.observability.ShaperObservability;
import dev.trafficshaper.infra.observability.ShaperObservabilityProps;
import dev.trafficshaper.infra.storage.PayloadBucket;
import dev.trafficshaper.infra.storage.RequestTable;
import java.nio.file.Path;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.Tags;
import software.amazon.awscdk.services.events.EventBus;
import software.amazon.awscdk.services.kms.Key;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.secretsmanager.SecretStringGenerator;
import software.constructs.Construct;

/**
 * The whole shaper in one stack: table, payload bucket, functions, request lifecycle, drain
 * schedule, API, outcome bus and observability, all encrypted with one customer-managed key.
 */
public final class TrafficShaperStack extends Stack {

    private final DeploymentSettings settings;
    private final Key key;
    private final RequestTable table;
    private final PayloadBucket payloads;
    private final EventBus outcomes;
    private final Secret webhookSecret;
    private final ShaperFunctions functions;
    private final RequestLifecycle lifecycle;
    private final DrainSchedule drainSchedule;
    private final RequestApi api;
    private final ShaperObservability observability;

    public TrafficShaperStack(Construct scope, String id, StackProps props, DeploymentSettings settings,
                              Path statemachinesDirectory) {
        super(scope, id, props);
        this.settings = settings;
        boolean production = settings.stage().production();
        ResourceNames names = new ResourceNames(getStackName());
        Tags.of(this).add("application", "traffic-shaper");
        Tags.of(this).add("stage", settings.stage().name());

        this.key = Key.Builder.create(this, "DataKey")
                .description("Encrypts the Traffic Shaper's table, payloads, webhook secret and alarm topic")
                .enableKeyRotation(true)
                .removalPolicy(production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
                .pendingWindow(Duration.days(production ? 30 : 7))
                .build();
        this.table = new RequestTable(this, "Requests", key, production);
        this.payloads = new PayloadBucket(this, "Payloads", key, settings.payloadRetentionDays(), production);
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
                names, Code.fromAsset(settings.functionsJar().toString()), settings.models(), table, payloads, key,
                outcomes, webhookSecret, settings.stage()));
        this.lifecycle = new RequestLifecycle(this, "Lifecycle", new RequestLifecycleProps(
                names.stateMachineName(), statemachinesDirectory,
                functions.budgetManager().alias(), functions.finalizer().alias(), functions.notifier().alias(),
                settings.models().longestDeadlineSeconds(), settings.models().longestDeadlineModel().key(),
                production));
        this.drainSchedule = new DrainSchedule(this, "DrainSchedule", functions.queueProcessor().alias());
        this.api = new RequestApi(this, "Http", new RequestApiProps(
                settings.stage().name(), functions.submit().alias(), functions.status().alias(), settings.models(),
                settings.apiRateLimit(), settings.apiBurstLimit(), settings.webAcl(), production));
        this.observability = new ShaperObservability(this, "Observability", new ShaperObservabilityProps(
                getStackName(), settings.models(), functions, lifecycle.stateMachine(), api.api(), key,
                settings.alarmEmail()));

        new ShaperNagSuppressions(this).apply();
        outputs();
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

    public DeploymentSettings settings() {
        return settings;
    }

    public Key key() {
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
}
