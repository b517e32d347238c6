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
 * @param apiRateLimit         steady API requests per second across all callers
 * @param apiBurstLimit        API burst size
 * @param webAcl               whether to put an AWS WAF web ACL in front of the API
 * @param alarmEmail           address subscribed to the alarm topic, or null for none
 * @param payloadRetentionDays days prompts and results stay in the payload bucket
 */
public record DeploymentSettings(
        Stage stage,
        ModelsConfiguration models,
        Path functionsJar,
        double apiRateLimit,
        int apiBurstLimit,
        boolean webAcl,
        String alarmEmail,
        int payloadRetentionDays) {

    public static final String DEFAULT_MODELS_FILE = "config/models.json";
    public static final String DEFAULT_FUNCTIONS_JAR = "functions/target/traffic-shaper-functions.jar";

    public DeploymentSettings {
        if (stage == null || models == null || functionsJar == null) {
            throw new InvalidDeploymentException("stage, models and functionsJar are required");
        }
        if (!Files.isRegularFile(functionsJar)) {
            throw new InvalidDeploymentException(functionsJar + ": the Lambda jar is missing; build it first with"
                    + " ./mvnw -q -DskipTests package (or pass -c functionsJar=PATH)");
        }
        if (apiRateLimit <= 0 || apiBurstLimit < 1) {
            throw new InvalidDeploymentException("apiRateLimit and apiBurstLimit must be positive");
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

    /**
     * Reads the settings from context values; {@code context} returns null for an unset key.
     * Relative paths are resolved against {@code baseDir} (the directory {@code cdk} runs in).
     */
    public static DeploymentSettings fromContext(Function<String, Object> context, Path baseDir) {
        Lookup lookup = new Lookup(context);
        Stage stage = Stage.named(lookup.text("stage").orElse("dev"));
        Optional<String> production = lookup.text("production");
        if (production.isPresent()) {
            stage = stage.withProduction(Boolean.parseBoolean(production.get()));
        }
        Path modelsFile = baseDir.resolve(lookup.text("modelsFile").orElse(DEFAULT_MODELS_FILE));
        Path jar = baseDir.resolve(lookup.text("functionsJar").orElse(DEFAULT_FUNCTIONS_JAR));
        return new DeploymentSettings(
                stage,
                ModelsConfiguration.read(modelsFile),
                jar,
                lookup.number("apiRateLimit", 100),
                (int) lookup.number("apiBurstLimit", 200),
                lookup.text("webAcl").map(Boolean::parseBoolean).orElse(false),
                lookup.text("alarmEmail").filter(s -> !s.isBlank()).orElse(null),
                (int) lookup.number("payloadRetentionDays", 30));
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
            Optional<String> value = text(key);
            if (value.isEmpty()) {
                return fallback;
            }
            try {
                return Double.parseDouble(value.get());
            } catch (NumberFormatException e) {
                throw new InvalidDeploymentException(key + ": '" + value.get() + "' is not a number");
            }
        }
    }
}
