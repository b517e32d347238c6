package dev.trafficshaper.infra.observability;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Metric;

/**
 * The custom metrics the functions publish (CloudWatch embedded metric format through Powertools)
 * and the dashboard and alarms read. Every metric carries the dimensions {@code Service} (the
 * Powertools service name) and {@code Model} (the models-file key); outcomes add {@code Outcome}.
 *
 * <p>The function code is the source of truth: these names are those of
 * {@code functions/.../aws/PowertoolsMetrics}, and the infra tests compare the two.
 */
public final class ShaperMetrics {

    /** Requests waiting in the model's queue shards (drainer, gauge: Maximum). */
    public static final String QUEUE_DEPTH = "QueueDepth";
    /** Requests the Budget Manager put in a queue (count). */
    public static final String ENQUEUED = "EnqueuedRequests";
    /** Requests the drainer sent to the Bedrock Processor (count). */
    public static final String DISPATCHED = "DispatchedRequests";
    /** Quota tokens reserved at admission, output counted with its burndown (count). */
    public static final String ADMITTED_TOKENS = "AdmittedTokens";
    /** Milliseconds from enqueue to dispatch (distribution). */
    public static final String WAIT_TIME = "WaitTime";
    /**
     * ThrottlingException answers from Bedrock; the target is zero (count). Counted twice for one
     * throttle: by the Bedrock Processor that received it and by the drainer that saw the request
     * come back to the queue; the alarm only asks whether there was any.
     */
    public static final String BEDROCK_THROTTLES = "BedrockThrottles";
    /** Throttled requests put back in the queue at their place (count). */
    public static final String REQUEUES = "Requeues";
    /**
     * Actual input plus output tokens of a finished request, as Bedrock reported them, before any
     * output burndown (count).
     */
    public static final String SETTLED_TOKENS = "SettledTokens";
    /** Terminal outcomes, one per request, with an {@code Outcome} dimension (count). */
    public static final String OUTCOMES = "Outcomes";

    /** The {@code Outcome} dimension values: one per terminal reason of a request. */
    public static final List<String> OUTCOME_REASONS = List.of(
            "succeeded", "throttled", "dependency_error", "deadline_expired", "model_timeout", "invalid", "aborted");
    public static final String DEADLINE_EXPIRED = "deadline_expired";

    private final String namespace;
    private final String service;

    public ShaperMetrics(String namespace, String service) {
        this.namespace = namespace;
        this.service = service;
    }

    public Metric model(String metricName, String modelKey, String statistic, Duration period) {
        return Metric.Builder.create()
                .namespace(namespace)
                .metricName(metricName)
                .dimensionsMap(Map.of("Service", service, "Model", modelKey))
                .statistic(statistic)
                .period(period)
                .build();
    }

    public Metric outcome(String modelKey, String reason, Duration period) {
        return Metric.Builder.create()
                .namespace(namespace)
                .metricName(OUTCOMES)
                .dimensionsMap(Map.of("Service", service, "Model", modelKey, "Outcome", reason))
                .statistic("Sum")
                .period(period)
                .build();
    }
}
