package dev.trafficshaper.loadtest.stack;

import dev.trafficshaper.model.ModelCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * What a deployment of the load-test stack may choose, from CDK context ({@code -c key=value}):
 * {@code loadTestStackName} (default {@value #DEFAULT_STACK_NAME}), {@code modelsFile} (the shaper's
 * models file, default {@value #DEFAULT_MODELS_FILE}: the direct arms may call exactly its models),
 * {@code loadtestJar} (the workers' code, default {@value #DEFAULT_JAR}) and
 * {@code resultsRetentionDays} (default 30). Which shaper stack it is pointed at is a deploy-time
 * parameter, not context, so one synthesized template serves any shaper stack.
 */
public record LoadTestSettings(String stackName, ModelCatalog models, Path loadtestJar, int resultsRetentionDays) {

    public static final String DEFAULT_STACK_NAME = "TrafficShaperLoadTest";
    public static final String DEFAULT_MODELS_FILE = "config/models.json";
    public static final String DEFAULT_JAR = "loadtest/target/traffic-shaper-loadtest.jar";

    public LoadTestSettings {
        if (stackName == null || !stackName.matches("[A-Za-z][A-Za-z0-9-]{0,39}")) {
            throw new IllegalArgumentException("loadTestStackName must be 1-40 letters, digits and dashes, starting"
                    + " with a letter, was '" + stackName + "'");
        }
        if (models == null || models.all().isEmpty()) {
            throw new IllegalArgumentException("the models file names no model");
        }
        if (loadtestJar == null || !Files.isRegularFile(loadtestJar)) {
            throw new IllegalArgumentException(loadtestJar + ": the load-test jar is missing; build it first with"
                    + " ./mvnw -q -DskipTests package (or pass -c loadtestJar=PATH)");
        }
        if (resultsRetentionDays < 1) {
            throw new IllegalArgumentException("resultsRetentionDays must be at least 1");
        }
    }

    public static LoadTestSettings fromContext(Function<String, Object> context) {
        String stack = text(context, "loadTestStackName", DEFAULT_STACK_NAME);
        Path models = Path.of(text(context, "modelsFile", DEFAULT_MODELS_FILE));
        Path jar = Path.of(text(context, "loadtestJar", DEFAULT_JAR));
        int retention = Integer.parseInt(text(context, "resultsRetentionDays", "30"));
        return new LoadTestSettings(stack, ModelCatalog.read(models), jar, retention);
    }

    private static String text(Function<String, Object> context, String key, String fallback) {
        Object value = context.apply(key);
        return value == null || value.toString().isBlank() ? fallback : value.toString();
    }
}
