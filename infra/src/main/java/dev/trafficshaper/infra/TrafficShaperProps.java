package dev.trafficshaper.infra;

import dev.trafficshaper.infra.config.DeploymentSettings;
import dev.trafficshaper.infra.config.InvalidDeploymentException;
import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.infra.config.PlatformQuotas;
import dev.trafficshaper.infra.config.Stage;
import dev.trafficshaper.infra.config.ThrottleOverrides;
import java.nio.file.Path;
import java.util.Objects;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.kms.IKey;

/**
 * What a {@link TrafficShaper} is built from. Required: the models and the function code; every
 * other setting has the default the {@code cdk.json} app uses. Build with {@link #builder()}.
 */
public final class TrafficShaperProps {

    private final ModelsConfiguration models;
    private final FunctionCode code;
    private final Stage stage;
    private final String namePrefix;
    private final PlatformQuotas quotas;
    private final ThrottleOverrides throttles;
    private final boolean webAcl;
    private final String alarmEmail;
    private final int payloadRetentionDays;
    private final ITable existingTable;
    private final IKey existingKey;
    private final Path statemachinesDirectory;

    private TrafficShaperProps(Builder b) {
        this.models = b.models;
        this.code = b.code;
        this.stage = b.stage;
        this.namePrefix = b.namePrefix;
        this.quotas = b.quotas;
        this.throttles = b.throttles;
        this.webAcl = b.webAcl;
        this.alarmEmail = b.alarmEmail;
        this.payloadRetentionDays = b.payloadRetentionDays;
        this.existingTable = b.existingTable;
        this.existingKey = b.existingKey;
        this.statemachinesDirectory = b.statemachinesDirectory;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The props of the {@code cdk.json} app: the settings read from context. */
    public static Builder fromSettings(DeploymentSettings settings) {
        return builder()
                .models(settings.models())
                .code(FunctionCode.fromPath(settings.functionsJar()))
                .stage(settings.stage())
                .quotas(settings.quotas())
                .throttles(settings.throttles())
                .webAcl(settings.webAcl())
                .alarmEmail(settings.alarmEmail())
                .payloadRetentionDays(settings.payloadRetentionDays());
    }

    public ModelsConfiguration models() {
        return models;
    }

    public FunctionCode code() {
        return code;
    }

    public Stage stage() {
        return stage;
    }

    /** The prefix of physical names, or null for the default (see {@link Builder#namePrefix}). */
    public String namePrefix() {
        return namePrefix;
    }

    public PlatformQuotas quotas() {
        return quotas;
    }

    public ThrottleOverrides throttles() {
        return throttles;
    }

    public boolean webAcl() {
        return webAcl;
    }

    public String alarmEmail() {
        return alarmEmail;
    }

    public int payloadRetentionDays() {
        return payloadRetentionDays;
    }

    /** The table to use instead of creating one, or null. */
    public ITable existingTable() {
        return existingTable;
    }

    /** The key to encrypt with instead of creating one, or null. */
    public IKey existingKey() {
        return existingKey;
    }

    /** A directory holding {@code request-lifecycle.asl.json}, or null for the definition in the infra jar. */
    public Path statemachinesDirectory() {
        return statemachinesDirectory;
    }

    public static final class Builder {
        private ModelsConfiguration models;
        private FunctionCode code;
        private Stage stage = Stage.named("dev");
        private String namePrefix;
        private PlatformQuotas quotas = PlatformQuotas.DEFAULTS;
        private ThrottleOverrides throttles = ThrottleOverrides.NONE;
        private boolean webAcl;
        private String alarmEmail;
        private int payloadRetentionDays = DeploymentSettings.DEFAULT_PAYLOAD_RETENTION_DAYS;
        private ITable existingTable;
        private IKey existingKey;
        private Path statemachinesDirectory;

        private Builder() {
        }

        /** The models file, e.g. {@code ModelsConfiguration.read(Path.of("models.json"))}. Required. */
        public Builder models(ModelsConfiguration value) {
            this.models = value;
            return this;
        }

        /** The Lambda code: {@link FunctionCode#fromClassPath()} or {@link FunctionCode#fromPath}. Required. */
        public Builder code(FunctionCode value) {
            this.code = value;
            return this;
        }

        /** Log retention, removal policies and deletion protection follow the stage (default {@code dev}). */
        public Builder stage(Stage value) {
            this.stage = value;
            return this;
        }

        /**
         * Prefix of the functions', state machine's and event bus's names, 1-40 characters. Default:
         * the stack name, followed by the construct id unless the id is {@code Default}.
         */
        public Builder namePrefix(String value) {
            this.namePrefix = value;
            return this;
        }

        /** The account's limits the API throttles are sized from (default: unraised quotas). */
        public Builder quotas(PlatformQuotas value) {
            this.quotas = value;
            return this;
        }

        /** API throttles that replace the computed ones. */
        public Builder throttles(ThrottleOverrides value) {
            this.throttles = value;
            return this;
        }

        /** Whether to put an AWS WAF web ACL in front of the API (default no). */
        public Builder webAcl(boolean value) {
            this.webAcl = value;
            return this;
        }

        /** Subscribed to the alarm topic; default none. */
        public Builder alarmEmail(String value) {
            this.alarmEmail = value;
            return this;
        }

        public Builder payloadRetentionDays(int value) {
            this.payloadRetentionDays = value;
            return this;
        }

        /**
         * A table to use instead of creating one: string keys {@code pk} and {@code sk}, TTL on
         * {@code expiresAt}, no other item with a {@code MODEL#} or {@code REQ#} key prefix.
         */
        public Builder existingTable(ITable value) {
            this.existingTable = value;
            return this;
        }

        /**
         * A customer-managed key to encrypt the table, payloads, webhook secret and alarm topic with,
         * instead of creating one. Its key policy must let CloudWatch alarms publish to the topic
         * ({@code kms:Decrypt}, {@code kms:GenerateDataKey} for {@code cloudwatch.amazonaws.com}).
         */
        public Builder existingKey(IKey value) {
            this.existingKey = value;
            return this;
        }

        /** Read the lifecycle definition from this directory instead of the one inside the infra jar. */
        public Builder statemachinesDirectory(Path value) {
            this.statemachinesDirectory = value;
            return this;
        }

        public TrafficShaperProps build() {
            if (models == null || code == null) {
                throw new InvalidDeploymentException("TrafficShaperProps: models and code are required");
            }
            Objects.requireNonNull(stage, "stage");
            Objects.requireNonNull(quotas, "quotas");
            Objects.requireNonNull(throttles, "throttles");
            long minimumRetention = DeploymentSettings.minimumPayloadRetentionDays(models);
            if (payloadRetentionDays < minimumRetention) {
                throw new InvalidDeploymentException("payloadRetentionDays: " + payloadRetentionDays + " days would"
                        + " delete bodies the functions still read; keep them at least " + minimumRetention + " days");
            }
            if (alarmEmail != null && !alarmEmail.matches("[^@\\s]+@[^@\\s]+")) {
                throw new InvalidDeploymentException("alarmEmail: '" + alarmEmail + "' is not an email address");
            }
            return new TrafficShaperProps(this);
        }
    }
}
