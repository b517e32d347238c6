package dev.trafficshaper.infra.observability;

import dev.trafficshaper.infra.compute.ShaperFunction;
import dev.trafficshaper.infra.compute.ShaperFunctions;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import java.util.ArrayList;
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
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sns.subscriptions.EmailSubscription;
import software.constructs.Construct;

/**
 * One dashboard and the alarms an operator of the shaper needs: per model, queue depth, admitted
 * tokens per minute against the quota, utilisation, waits p50/p99, Bedrock throttles and outcomes
 * by reason; alarms on any throttle, any deadline expiry, a stalled drainer and a non-empty DLQ.
 * Alarms notify an encrypted SNS topic.
 */
public final class ShaperObservability extends Construct {

    private static final Duration MINUTE = Duration.minutes(1);
    private static final Duration FIVE_MINUTES = Duration.minutes(5);
    private static final int WIDTH = 8;
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
