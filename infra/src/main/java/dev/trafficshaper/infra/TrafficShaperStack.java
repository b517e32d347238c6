package dev.trafficshaper.infra;

import dev.trafficshaper.infra.api.RequestApi;
import dev.trafficshaper.infra.compute.ShaperFunctions;
import dev.trafficshaper.infra.config.DeploymentSettings;
import dev.trafficshaper.infra.lifecycle.DrainSchedule;
import dev.trafficshaper.infra.lifecycle.RequestLifecycle;
import dev.trafficshaper.infra.observability.ShaperObservability;
import dev.trafficshaper.infra.storage.PayloadBucket;
import dev.trafficshaper.infra.storage.RequestTable;
import java.nio.file.Path;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.events.EventBus;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.constructs.Construct;

/**
 * The stack the {@code cdk.json} app deploys: one {@link TrafficShaper}, configured from context. The
 * construct's id is {@code Default}, which the CDK leaves out of logical ids, so the resources keep
 * the ids they had when this stack built them itself.
 */
public final class TrafficShaperStack extends Stack {

    private final DeploymentSettings settings;
    private final TrafficShaper shaper;

    public TrafficShaperStack(Construct scope, String id, StackProps props, DeploymentSettings settings,
                              Path statemachinesDirectory) {
        super(scope, id, props);
        this.settings = settings;
        this.shaper = new TrafficShaper(this, "Default", TrafficShaperProps.fromSettings(settings)
                .statemachinesDirectory(statemachinesDirectory)
                .build());
    }

    public DeploymentSettings settings() {
        return settings;
    }

    public TrafficShaper shaper() {
        return shaper;
    }

    public IKey key() {
        return shaper.key();
    }

    public RequestTable table() {
        return shaper.table();
    }

    public PayloadBucket payloads() {
        return shaper.payloads();
    }

    public EventBus outcomes() {
        return shaper.outcomes();
    }

    public Secret webhookSecret() {
        return shaper.webhookSecret();
    }

    public ShaperFunctions functions() {
        return shaper.functions();
    }

    public RequestLifecycle lifecycle() {
        return shaper.lifecycle();
    }

    public DrainSchedule drainSchedule() {
        return shaper.drainSchedule();
    }

    public RequestApi api() {
        return shaper.api();
    }

    public ShaperObservability observability() {
        return shaper.observability();
    }
}
