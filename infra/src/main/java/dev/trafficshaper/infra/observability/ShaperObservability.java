package dev.trafficshaper.infra.observability;

import dev.trafficshaper.infra.compute.ShaperFunction;
import dev.trafficshaper.infra.compute.ShaperFunctions;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.HorizontalAnnotation;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.IWidget;
import software.amazon.awscdk.services.cloudwatch.MathExpression;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.TextWidget;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.logs.FilterPattern;
import software.amazon.awscdk.services.logs.MetricFilter;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sns.subscriptions.EmailSubscription;
import software.constructs.Construct;

/**
 * One dashboard and the alarms an operator of the shaper needs: per model, queue depth, admitted
 * tokens per minute against the quota, utilisation, waits p50/p99, Bedrock throttles and outcomes
 * by reason; alarms on any throttle, any deadline expiry, a stalled drainer and a non-empty DLQ.
 *
 * <p>Below the models, the platform's own ceilings, each with an alarm, because each one loses or
 * delays requests without any Bedrock throttle showing: DynamoDB throttles (the queue and the
 * status items), Lambda throttles (every function but the Queue Processor, whose cap is meant to
 * turn surplus wake-ups away) and the account's concurrency near its limit, Step Functions
 * executions and API calls throttled (StartExecution, SendTaskSuccess/Failure), the Bedrock
 * Processor's asynchronous events dropped or growing old in Lambda's queue, and webhooks that
 * failed every attempt (counted from the Notifier's log). Alarms notify an encrypted SNS topic.
 */
public final class ShaperObservability extends Construct {

    private static final Duration MINUTE = Duration.minutes(1);
    private static final Duration FIVE_MINUTES = Duration.minutes(5);
    private static final int WIDTH = 8;
    /** Log-derived metric: one per webhook that failed every attempt (the Notifier logs it). */
    public static final String FAILED_WEBHOOKS = "FailedWebhooks";
    /** The Notifier's log line for a webhook that failed every attempt ({@code NotifierHandler}). */
    static final String FAILED_WEBHOOK_MESSAGE = "webhook not delivered*";
    /** Share of the account's Lambda concurrency at which the concurrency alarm fires. */
    public static final double CONCURRENCY_ALARM_SHARE = 0.8;
    /**
     * Age at which a Bedrock Processor event waiting in Lambda's asynchronous queue alarms: the
     * drainer dispatches at the pace Bedrock can take, so an event older than a minute means the
     * function cannot start (throttled or out of concurrency), and requests wait past their ETA.
     */
    public static final Duration ASYNC_EVENT_AGE_ALARM = Duration.minutes(1);
    /** Step Functions API calls the lifecycle depends on, whose throttling the API-throttle alarm watches. */
    public static final List<String> STEP_FUNCTIONS_APIS = List.of("StartExecution", "SendTaskSuccess",
            "SendTaskFailure");
    private static final int HEIGHT = 6;

    private final ShaperMetrics metrics = new ShaperMetrics(ShaperFunctions.METRICS_NAMESPACE,
            ShaperFunctions.SERVICE_NAME);
    private final Topic alarmTopic;
    private final Dashboard dashboard;
    private final List<Alarm> alarms = new ArrayList<>();

    public ShaperObservability(Construct scope, String id, ShaperObservabilityProps props) {
        super(scope, id);
        props.key().grant(new ServicePrincipal("cloudwatch.amazonaws.com"), "kms:Decrypt", "kms:GenerateDataKey");
        this.alarmTopic = Topic.Builder.create(this, "AlarmTopic")
                .displayName("Traffic Shaper alarms")
                .masterKey(props.key())
                .enforceSsl(true)
                .build();
        if (props.alarmEmail() != null) {
            alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail()));
        }
        this.dashboard = Dashboard.Builder.create(this, "Dashboard")
                .dashboardName(props.dashboardName())
                .defaultInterval(Duration.hours(3))
                .build();
        dashboard.addWidgets(TextWidget.Builder.create()
                .markdown("# Traffic Shaper\nPer model: queue, admitted tokens vs quota, utilisation, waits, "
                        + "throttles (target: zero) and outcomes. Then the DLQ, the lifecycle, the API.")
                .width(24).height(2).build());
        for (ModelConfig model : props.models().models()) {
            addModel(model);
        }
        addPlatform(props);
        addCapacity(props);
    }

    private void addModel(ModelConfig model) {
        String key = model.key();
        Metric depth = metrics.model(ShaperMetrics.QUEUE_DEPTH, key, "Maximum", MINUTE);
        Metric admitted = metrics.model(ShaperMetrics.ADMITTED_TOKENS, key, "Sum", MINUTE);
        Metric throttles = metrics.model(ShaperMetrics.BEDROCK_THROTTLES, key, "Sum", MINUTE);
        long tokenQuota = tokenQuota(model.quota());
        double target = model.pacer().targetUtilization();

        List<IWidget> row = new ArrayList<>();
        row.add(graph(key + ": queue depth", List.of(depth), List.of()));
        Metric settled = metrics.model(ShaperMetrics.SETTLED_TOKENS, key, "Sum", MINUTE).with(MetricOptions.builder()
                .label(model.quota().outputBurndown() == 1 ? "settled (actual)"
                        : "settled (actual, output before its " + model.quota().outputBurndown() + "x burndown)")
                .build());
        row.add(graph(key + ": admitted tokens/min vs quota", List.of(admitted.with(MetricOptions.builder()
                .label("admitted (reserved)").build()), settled), tokenQuota == 0 ? List.of() : List.of(
                HorizontalAnnotation.builder().value(tokenQuota).label("quota").build(),
                HorizontalAnnotation.builder().value(tokenQuota * target).label("target").build())));
        if (tokenQuota > 0) {
            row.add(graph(key + ": utilisation %", List.of(MathExpression.Builder.create()
                    .expression("100 * FILL(admitted, 0) / " + tokenQuota)
                    .usingMetrics(Map.of("admitted", admitted))
                    .label("admitted / quota")
                    .period(MINUTE)
                    .build()), List.of(HorizontalAnnotation.builder().value(100 * target).label("target").build())));
        }
        row.add(graph(key + ": wait p50 / p99 (ms)", List.of(
                metrics.model(ShaperMetrics.WAIT_TIME, key, "p50", MINUTE),
                metrics.model(ShaperMetrics.WAIT_TIME, key, "p99", MINUTE)), List.of()));
        row.add(graph(key + ": Bedrock throttles and requeues", List.of(throttles,
                metrics.model(ShaperMetrics.REQUEUES, key, "Sum", MINUTE)), List.of()));
        List<IMetric> outcomes = new ArrayList<>();
        ShaperMetrics.OUTCOME_REASONS.forEach(reason -> outcomes.add(metrics.outcome(key, reason, MINUTE)
                .with(MetricOptions.builder().label(reason).build())));
        row.add(GraphWidget.Builder.create().title(key + ": outcomes by reason").left(outcomes)
                .stacked(true).width(WIDTH).height(HEIGHT).build());
        dashboard.addWidgets(row.toArray(IWidget[]::new));

        alarm("BedrockThrottles-" + key, "Bedrock throttled a request for " + key
                        + ": the pacer's target is above the real quota or another client shares it",
                throttles, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);
        alarm("DeadlineExpiries-" + key, "Requests for " + key
                        + " missed their deadline: the queue is longer than the quota can serve in time",
                metrics.outcome(key, ShaperMetrics.DEADLINE_EXPIRED, FIVE_MINUTES), 1, 1,
                ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);
        alarm("DrainerStalled-" + key, "Work is waiting for " + key
                        + " but nothing was dispatched for 10 minutes: the drainer is not running",
                MathExpression.Builder.create()
                        .expression("IF((FILL(enqueued, 0) > 0 OR FILL(depth, 0) > 0) AND FILL(dispatched, 0) == 0, 1, 0)")
                        .usingMetrics(Map.of(
                                "enqueued", metrics.model(ShaperMetrics.ENQUEUED, key, "Sum", FIVE_MINUTES),
                                "depth", metrics.model(ShaperMetrics.QUEUE_DEPTH, key, "Maximum", FIVE_MINUTES),
                                "dispatched", metrics.model(ShaperMetrics.DISPATCHED, key, "Sum", FIVE_MINUTES)))
                        .label("stalled")
                        .period(FIVE_MINUTES)
                        .build(),
                1, 2, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);
    }

    private void addPlatform(ShaperObservabilityProps props) {
        ShaperFunctions functions = props.functions();
        Metric deadLetters = functions.bedrockProcessorDeadLetters().metricApproximateNumberOfMessagesVisible(
                MetricOptions.builder()
                        .statistic("Maximum").period(MINUTE).build());
        alarm("BedrockProcessorDeadLetters", "A Bedrock Processor invocation failed or expired and is in the DLQ:"
                        + " inspect it, the request may need a manual outcome",
                deadLetters, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);

        List<IMetric> errors = new ArrayList<>();
        for (ShaperFunction fn : functions.all()) {
            errors.add(fn.function().metricErrors(MetricOptions.builder()
                    .period(MINUTE).label(fn.spec().purpose()).build()));
        }
        dashboard.addWidgets(
                graph("Bedrock Processor DLQ", List.of(deadLetters), List.of()),
                graph("Lifecycle executions", List.of(
                        props.stateMachine().metricStarted(), props.stateMachine().metricSucceeded(),
                        props.stateMachine().metricFailed(), props.stateMachine().metricTimedOut()), List.of()),
                graph("API requests and errors", List.of(
                        props.api().metricCount(), props.api().metricClientError(),
                        props.api().metricServerError()), List.of()));
        dashboard.addWidgets(
                graph("Function errors", errors, List.of()),
                graph("API latency p99 (ms)", List.of(props.api().metricLatency(
                        MetricOptions.builder()
                                .statistic("p99").build())), List.of()));
    }

    private void addCapacity(ShaperObservabilityProps props) {
        ShaperFunctions functions = props.functions();
        ShaperFunction bedrockProcessor = functions.bedrockProcessor();

        IMetric tableThrottles = sum("DynamoDB throttled reads + writes", Map.of(
                "reads", props.table().metric("ReadThrottleEvents", sumPerMinute()),
                "writes", props.table().metric("WriteThrottleEvents", sumPerMinute())));
        alarm("DynamoDbThrottles", "DynamoDB throttled the shaper's table: the queue, a status item or a lease"
                        + " is hotter than its partition allows or the table's on-demand throughput is exceeded;"
                        + " see docs/deploy.md (warm throughput)",
                tableThrottles, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);

        Map<String, IMetric> throttledFunctions = new LinkedHashMap<>();
        List<IMetric> throttleLines = new ArrayList<>();
        for (ShaperFunction fn : functions.all()) {
            Metric throttles = fn.function().metricThrottles(MetricOptions.builder()
                    .period(MINUTE).label(fn.spec().purpose()).build());
            throttleLines.add(throttles);
            if (fn != functions.queueProcessor()) {
                throttledFunctions.put("f" + throttledFunctions.size(), throttles);
            }
        }
        alarm("LambdaThrottles", "Lambda throttled a shaper function other than the Queue Processor (whose cap"
                        + " turns surplus wake-ups away by design): the account or the function is out of"
                        + " concurrency; see docs/deploy.md",
                sum("throttled invocations", throttledFunctions), 1, 1,
                ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);

        Metric concurrency = software.amazon.awscdk.services.lambda.Function.metricAllConcurrentExecutions(
                MetricOptions.builder().statistic("Maximum").period(MINUTE).build());
        double concurrencyThreshold = Math.floor(props.accountConcurrency() * CONCURRENCY_ALARM_SHARE);
        alarm("LambdaConcurrency", "The account's Lambda functions in this region run at "
                        + Math.round(100 * CONCURRENCY_ALARM_SHARE) + "% of the " + props.accountConcurrency()
                        + " concurrent executions the stack was told the account has (-c accountConcurrency):"
                        + " the next burst will be throttled",
                concurrency, concurrencyThreshold, 3, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);

        Metric executionThrottled = props.stateMachine().metric("ExecutionThrottled", sumPerMinute());
        alarm("ExecutionsThrottled", "Step Functions throttled the request lifecycle's executions (state"
                        + " transitions over the account's quota): requests are delayed; see docs/deploy.md",
                executionThrottled, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);
        Map<String, IMetric> apiThrottles = new LinkedHashMap<>();
        for (String api : STEP_FUNCTIONS_APIS) {
            apiThrottles.put("api" + apiThrottles.size(), Metric.Builder.create()
                    .namespace("AWS/States")
                    .metricName("ThrottledEvents")
                    .dimensionsMap(Map.of("APIName", api))
                    .statistic("Sum")
                    .period(MINUTE)
                    .label(api)
                    .build());
        }
        IMetric stepFunctionsApiThrottles = sum("Step Functions API calls throttled", apiThrottles);
        alarm("StepFunctionsApiThrottles", "Step Functions throttled " + String.join(", ", STEP_FUNCTIONS_APIS)
                        + " calls in this account and region: submissions answer 429 and task tokens are"
                        + " resumed late; see docs/deploy.md for the quota raises",
                stepFunctionsApiThrottles, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);

        Metric dropped = bedrockProcessor.function().metric("AsyncEventsDropped", sumPerMinute());
        alarm("BedrockProcessorEventsDropped", "Lambda dropped a Bedrock Processor event without running it"
                        + " (too old or throttled past its maximum age): the request keeps waiting until its"
                        + " deadline; the DLQ holds the event",
                dropped, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);
        Metric eventAge = bedrockProcessor.function().metric("AsyncEventAge", MetricOptions.builder()
                .statistic("Maximum").period(MINUTE).build());
        alarm("BedrockProcessorEventAge", "Bedrock Processor events wait longer than "
                        + ASYNC_EVENT_AGE_ALARM.toSeconds() + " s in Lambda's asynchronous queue: the function"
                        + " cannot start as fast as the drainer dispatches (throttled or out of concurrency)",
                eventAge, ASYNC_EVENT_AGE_ALARM.toMilliseconds().doubleValue(), 3,
                ComparisonOperator.GREATER_THAN_THRESHOLD);

        MetricFilter.Builder.create(this, "FailedWebhooksFilter")
                .logGroup(functions.notifier().logGroup())
                .filterPattern(FilterPattern.stringValue("$.message", "=", FAILED_WEBHOOK_MESSAGE))
                .metricNamespace(ShaperFunctions.METRICS_NAMESPACE)
                .metricName(FAILED_WEBHOOKS)
                .metricValue("1")
                .defaultValue(0)
                .build();
        Metric failedWebhooks = Metric.Builder.create()
                .namespace(ShaperFunctions.METRICS_NAMESPACE)
                .metricName(FAILED_WEBHOOKS)
                .statistic("Sum")
                .period(FIVE_MINUTES)
                .build();
        alarm("FailedWebhooks", "A webhook failed every delivery attempt: the receiver is down or refuses the"
                        + " signature; the result stays readable with GET /v1/requests/{id}",
                failedWebhooks, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);
        Metric webhookDeadLetters = functions.webhookDeadLetters().metricApproximateNumberOfMessagesVisible(
                MetricOptions.builder().statistic("Maximum").period(FIVE_MINUTES).build());
        alarm("WebhookDeadLetters", "Webhooks wait in the delivery dead-letter queue after every scheduled attempt"
                        + " failed: fix the receiver, then redrive the queue (docs/lifecycle.md)",
                webhookDeadLetters, 1, 1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD);

        dashboard.addWidgets(TextWidget.Builder.create()
                .markdown("## Platform ceilings\nThrottles of the table, the functions and Step Functions;"
                        + " concurrency; the Bedrock Processor's asynchronous queue; failed webhooks.")
                .width(24).height(1).build());
        dashboard.addWidgets(
                graph("DynamoDB throttles", List.of(tableThrottles), List.of()),
                graph("Lambda throttles by function", throttleLines, List.of()),
                graph("Lambda concurrency (account)", List.of(concurrency), List.of(HorizontalAnnotation.builder()
                        .value(concurrencyThreshold).label("alarm").build())));
        dashboard.addWidgets(
                graph("Step Functions throttles", List.of(executionThrottled, stepFunctionsApiThrottles), List.of()),
                graph("Bedrock Processor async queue", List.of(dropped, eventAge.with(MetricOptions.builder()
                        .label("oldest event (ms)").build())), List.of()),
                graph("Failed webhooks", List.of(failedWebhooks, webhookDeadLetters.with(MetricOptions.builder()
                        .label("dead-lettered webhooks").build())), List.of()));
    }

    private static MetricOptions sumPerMinute() {
        return MetricOptions.builder().statistic("Sum").period(MINUTE).build();
    }

    /** The sum of the metrics, a missing data point counted as zero. */
    private static MathExpression sum(String label, Map<String, IMetric> metrics) {
        return MathExpression.Builder.create()
                .expression(String.join(" + ", metrics.keySet().stream().map(id -> "FILL(" + id + ", 0)").toList()))
                .usingMetrics(metrics)
                .label(label)
                .period(MINUTE)
                .build();
    }

    private void alarm(String id, String description, IMetric metric, double threshold, int periods,
                       ComparisonOperator comparison) {
        Alarm alarm = Alarm.Builder.create(this, id)
                .alarmDescription(description)
                .metric(metric)
                .threshold(threshold)
                .evaluationPeriods(periods)
                .datapointsToAlarm(periods)
                .comparisonOperator(comparison)
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .build();
        alarm.addAlarmAction(new SnsAction(alarmTopic));
        alarms.add(alarm);
    }

    private static GraphWidget graph(String title, List<? extends IMetric> left, List<HorizontalAnnotation> annotations) {
        return GraphWidget.Builder.create()
                .title(title)
                .left(List.copyOf(left))
                .leftAnnotations(annotations)
                .width(WIDTH)
                .height(HEIGHT)
                .build();
    }

    /** The token quota utilisation is measured against: combined TPM, else input plus output TPM. */
    static long tokenQuota(Quota quota) {
        return quota.tpm() > 0 ? quota.tpm() : quota.inputTpm() + quota.outputTpm();
    }

    public Topic alarmTopic() {
        return alarmTopic;
    }

    public Dashboard dashboard() {
        return dashboard;
    }

    public List<Alarm> alarms() {
        return List.copyOf(alarms);
    }
}
