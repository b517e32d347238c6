package dev.trafficshaper.functions.aws;

import dev.trafficshaper.lifecycle.ShaperMetrics;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.RequestRecord;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsFactory;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The services' metrics as CloudWatch embedded-metric-format lines through Powertools, with the
 * names and dimensions the dashboard and alarms read ({@code Service}, {@code Model},
 * {@code Outcome}). Each data point is flushed on its own line so a model dimension never mixes
 * with another model's in one record.
 */
public final class PowertoolsMetrics implements ShaperMetrics {

    public static final String QUEUE_DEPTH = "QueueDepth";
    public static final String ENQUEUED = "EnqueuedRequests";
    public static final String DISPATCHED = "DispatchedRequests";
    public static final String ADMITTED_TOKENS = "AdmittedTokens";
    public static final String WAIT_TIME = "WaitTime";
    public static final String BEDROCK_THROTTLES = "BedrockThrottles";
    public static final String REQUEUES = "Requeues";
    public static final String SETTLED_TOKENS = "SettledTokens";
    public static final String OUTCOMES = "Outcomes";

    private final Metrics metrics = MetricsFactory.getMetricsInstance();
    private final String namespace;
    private final String service;

    public PowertoolsMetrics(String namespace, String service) {
        this.namespace = namespace;
        this.service = service;
    }

    public void enqueued(String modelKey) {
        point(ENQUEUED, 1, MetricUnit.COUNT, model(modelKey));
    }

    @Override
    public void admitted(String modelKey, long waitMillis, long reservedTokens) {
        point(DISPATCHED, 1, MetricUnit.COUNT, model(modelKey));
        point(ADMITTED_TOKENS, reservedTokens, MetricUnit.COUNT, model(modelKey));
        point(WAIT_TIME, waitMillis, MetricUnit.MILLISECONDS, model(modelKey));
    }

    @Override
    public void queueDepth(String modelKey, long depth) {
        point(QUEUE_DEPTH, depth, MetricUnit.COUNT, model(modelKey));
    }

    @Override
    public void throttled(String modelKey) {
        point(BEDROCK_THROTTLES, 1, MetricUnit.COUNT, model(modelKey));
    }

    @Override
    public void requeued(String modelKey) {
        point(REQUEUES, 1, MetricUnit.COUNT, model(modelKey));
    }

    @Override
    public void settled(String modelKey, TokenUsage actual) {
        point(SETTLED_TOKENS, actual.inputTokens() + actual.outputTokens(), MetricUnit.COUNT, model(modelKey));
    }

    @Override
    public void outcome(RequestRecord terminal) {
        String outcome = terminal.failureReason() == null ? "succeeded" : outcomeName(terminal);
        point(OUTCOMES, 1, MetricUnit.COUNT, model(terminal.modelKey()).addDimension("Outcome", outcome));
    }

    /** The {@code Outcome} dimension value, as the dashboard names them. */
    static String outcomeName(RequestRecord terminal) {
        return switch (terminal.failureReason()) {
            case THROTTLED -> "throttled";
            case DEPENDENCY_ERROR -> "dependency_error";
            case DEADLINE_EXPIRED -> "deadline_expired";
            case MODEL_TIMEOUT -> "model_timeout";
            case INVALID_REQUEST -> "invalid";
            case ABORTED -> "aborted";
        };
    }

    private DimensionSet model(String modelKey) {
        return DimensionSet.of("Service", service, "Model", modelKey);
    }

    private void point(String name, double value, MetricUnit unit, DimensionSet dimensions) {
        metrics.flushSingleMetric(name, value, unit, namespace, dimensions);
    }
}
