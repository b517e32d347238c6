package dev.trafficshaper.infra.config;

import dev.trafficshaper.request.NewRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Everything a deployment may choose, read from CDK context ({@code -c key=value} or
 * {@code cdk.json}) and checked before any construct is built.
 *
 * @param stage                stage name; {@code prod}/{@code production} are production stages
 * @param models               the validated models file
 * @param functionsJar         the shaded jar holding every Lambda handler
 * @param quotas               the account's Step Functions, Lambda and API Gateway limits the
 *                             front door is sized from
 * @param throttles            stage settings that replace the computed API throttles
 * @param region               the region the stack deploys to, when known at synth (the inference
 *                             stack is pinned to it and the inference profiles are checked
 *                             against it), else null
 * @param webAcl               whether to put an AWS WAF web ACL in front of the API
 * @param alarmEmail           address subscribed to the alarm topic, or null for none
 * @param payloadRetentionDays days prompts and results stay in the payload bucket
 */
public record DeploymentSettings(
        Stage stage,
        ModelsConfiguration models,
        Path functionsJar,
        PlatformQuotas quotas,
        ThrottleOverrides throttles,
        String region,
        boolean webAcl,
        String alarmEmail,
        int payloadRetentionDays) {

    public static final String DEFAULT_MODELS_FILE = "config/models.json";
    public static final String DEFAULT_FUNCTIONS_JAR = "functions/target/traffic-shaper-functions.jar";
    public static final int DEFAULT_PAYLOAD_RETENTION_DAYS = 30;

    public DeploymentSettings {
        if (stage == null || models == null || functionsJar == null || quotas == null || throttles == null) {
            throw new InvalidDeploymentException("stage, models, functionsJar, quotas and throttles are required");
        }
        if (!Files.isRegularFile(functionsJar)) {
            throw new InvalidDeploymentException(functionsJar + ": the Lambda jar is missing; build it first with"
                    + " ./mvnw -q -DskipTests package (or pass -c functionsJar=PATH)");
        }
        long minimumRetention = minimumPayloadRetentionDays(models);
        if (payloadRetentionDays < minimumRetention) {
            throw new InvalidDeploymentException("payloadRetentionDays: " + payloadRetentionDays + " days would delete"
                    + " bodies the functions still read; a request's prompt and result stay readable for its"
                    + " deadline plus " + Duration.ofMillis(NewRequest.DEFAULT_RETENTION_MILLIS).toDays() + " days, so"
                    + " with maxDeadlineSeconds " + models.longestDeadlineSeconds() + " (model "
                    + models.longestDeadlineModel().key() + ") keep them at least " + minimumRetention + " days");
        }
        if (alarmEmail != null && !alarmEmail.matches("[^@\\s]+@[^@\\s]+")) {
            throw new InvalidDeploymentException("alarmEmail: '" + alarmEmail + "' is not an email address");
        }
    }

    /** Settings with the defaults {@link #fromContext} uses for every key left unset. */
    public static Builder builder(Stage stage, ModelsConfiguration models, Path functionsJar) {
        return new Builder(stage, models, functionsJar);
    }

    /**
     * Reads the settings from context values; {@code context} returns null for an unset key.
     * Relative paths are resolved against {@code baseDir} (the directory {@code cdk} runs in). The
     * region is {@code -c region=...}, else {@code CDK_DEFAULT_REGION} as the CDK CLI sets it from
     * the caller's profile, else unknown.
     */
    public static DeploymentSettings fromContext(Function<String, Object> context, Path baseDir) {
        return fromContext(context, baseDir, System.getenv("CDK_DEFAULT_REGION"));
    }

    static DeploymentSettings fromContext(Function<String, Object> context, Path baseDir, String defaultRegion) {
        Lookup lookup = new Lookup(context);
        Stage stage = Stage.named(lookup.text("stage").orElse("dev"));
        Optional<String> production = lookup.text("production");
        if (production.isPresent()) {
            stage = stage.withProduction(Boolean.parseBoolean(production.get()));
        }
        Path modelsFile = baseDir.resolve(lookup.text("modelsFile").orElse(DEFAULT_MODELS_FILE));
        Path jar = baseDir.resolve(lookup.text("functionsJar").orElse(DEFAULT_FUNCTIONS_JAR));
        PlatformQuotas d = PlatformQuotas.DEFAULTS;
        PlatformQuotas quotas = new PlatformQuotas(
                lookup.number("startExecutionRate", d.startExecutionRate()),
                (int) lookup.number("startExecutionBurst", d.startExecutionBurst()),
                lookup.number("stateTransitionRate", d.transitionRate()),
                (int) lookup.number("stateTransitionBurst", d.transitionBurst()),
                (int) lookup.number("accountConcurrency", d.lambdaConcurrency()),
                lookup.number("apiAccountRate", d.apiAccountRate()),
                (int) lookup.number("apiAccountBurst", d.apiAccountBurst()));
        ThrottleOverrides throttles = new ThrottleOverrides(
                lookup.optionalNumber("submitRateLimit"),
                integer(lookup.optionalNumber("submitBurstLimit")),
                lookup.optionalNumber("statusRateLimit"),
                integer(lookup.optionalNumber("statusBurstLimit")));
        for (String removed : new String[] {"apiRateLimit", "apiBurstLimit"}) {
            if (lookup.text(removed).isPresent()) {
                throw new InvalidDeploymentException(removed + " is no longer read: submissions and status reads"
                        + " have their own throttles (submitRateLimit, submitBurstLimit, statusRateLimit,"
                        + " statusBurstLimit), sized from the account's quotas unless set; see docs/deploy.md");
            }
        }
        return builder(stage, ModelsConfiguration.read(modelsFile), jar)
                .quotas(quotas)
                .throttles(throttles)
                .region(lookup.text("region").filter(s -> !s.isBlank()).orElse(defaultRegion))
                .webAcl(lookup.text("webAcl").map(Boolean::parseBoolean).orElse(false))
                .alarmEmail(lookup.text("alarmEmail").filter(s -> !s.isBlank()).orElse(null))
                .payloadRetentionDays((int) lookup.number("payloadRetentionDays", DEFAULT_PAYLOAD_RETENTION_DAYS))
                .build();
    }

    private static Integer integer(Double value) {
        return value == null ? null : (int) Math.floor(value);
    }

    /** Builds {@link DeploymentSettings}; every setting but stage, models and jar has a default. */
    public static final class Builder {
        private final Stage stage;
        private final ModelsConfiguration models;
        private final Path functionsJar;
        private PlatformQuotas quotas = PlatformQuotas.DEFAULTS;
        private ThrottleOverrides throttles = ThrottleOverrides.NONE;
        private String region;
        private boolean webAcl;
        private String alarmEmail;
        private int payloadRetentionDays = DEFAULT_PAYLOAD_RETENTION_DAYS;

        private Builder(Stage stage, ModelsConfiguration models, Path functionsJar) {
            this.stage = stage;
            this.models = models;
            this.functionsJar = functionsJar;
        }

        public Builder quotas(PlatformQuotas value) {
            this.quotas = value;
            return this;
        }

        public Builder throttles(ThrottleOverrides value) {
            this.throttles = value;
            return this;
        }

        /** The deployment's region, or null when unknown at synth. */
        public Builder region(String value) {
            this.region = value;
            return this;
        }

        public Builder webAcl(boolean value) {
            this.webAcl = value;
            return this;
        }

        public Builder alarmEmail(String value) {
            this.alarmEmail = value;
            return this;
        }

        public Builder payloadRetentionDays(int value) {
            this.payloadRetentionDays = value;
            return this;
        }

        public DeploymentSettings build() {
            return new DeploymentSettings(stage, models, functionsJar, quotas, throttles, region, webAcl, alarmEmail,
                    payloadRetentionDays);
        }
    }

    /**
     * Days the payload bucket must keep an object: a body stays referenced for its request's deadline
     * plus the request retention ({@link NewRequest#DEFAULT_RETENTION_MILLIS}), and the functions
     * expect to find it until then.
     */
    public static long minimumPayloadRetentionDays(ModelsConfiguration models) {
        long millis = models.longestDeadlineSeconds() * 1000 + NewRequest.DEFAULT_RETENTION_MILLIS;
        long day = Duration.ofDays(1).toMillis();
        return (millis + day - 1) / day;
    }

    public String stackName() {
        return "TrafficShaper-" + stage.name();
    }

    private record Lookup(Function<String, Object> context) {

        Optional<String> text(String key) {
            Object value = context.apply(key);
            return value == null ? Optional.empty() : Optional.of(value.toString().trim());
        }

        double number(String key, double fallback) {
            Double value = optionalNumber(key);
            return value == null ? fallback : value;
        }

        /** The number set for the key, or null when it is not set. */
        Double optionalNumber(String key) {
            Optional<String> value = text(key);
            if (value.isEmpty()) {
                return null;
            }
            try {
                return Double.parseDouble(value.get());
            } catch (NumberFormatException e) {
                throw new InvalidDeploymentException(key + ": '" + value.get() + "' is not a number");
            }
        }
    }
}
