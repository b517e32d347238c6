package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.functions.aws.PowertoolsMetrics;
import dev.trafficshaper.infra.observability.ShaperMetrics;
import dev.trafficshaper.infra.observability.ShaperObservability;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/**
 * The dashboard and the alarms read what the functions publish: the function code
 * ({@link PowertoolsMetrics}) is the source of truth for names, dimensions and outcome values.
 */
class MetricsContractTest {

    private final Template dev = SynthesizedStacks.development().template();

    @Test
    void infraKnowsEveryMetricTheFunctionsPublishUnderTheSameName() throws IllegalAccessException {
        assertThat(metricNames(ShaperMetrics.class)).containsExactlyInAnyOrderElementsOf(
                metricNames(PowertoolsMetrics.class));
        assertThat(ShaperMetrics.QUEUE_DEPTH).isEqualTo(PowertoolsMetrics.QUEUE_DEPTH);
        assertThat(ShaperMetrics.ENQUEUED).isEqualTo(PowertoolsMetrics.ENQUEUED);
        assertThat(ShaperMetrics.DISPATCHED).isEqualTo(PowertoolsMetrics.DISPATCHED);
        assertThat(ShaperMetrics.ADMITTED_TOKENS).isEqualTo(PowertoolsMetrics.ADMITTED_TOKENS);
        assertThat(ShaperMetrics.WAIT_TIME).isEqualTo(PowertoolsMetrics.WAIT_TIME);
        assertThat(ShaperMetrics.BEDROCK_THROTTLES).isEqualTo(PowertoolsMetrics.BEDROCK_THROTTLES);
        assertThat(ShaperMetrics.REQUEUES).isEqualTo(PowertoolsMetrics.REQUEUES);
        assertThat(ShaperMetrics.SETTLED_TOKENS).isEqualTo(PowertoolsMetrics.SETTLED_TOKENS);
        assertThat(ShaperMetrics.OUTCOMES).isEqualTo(PowertoolsMetrics.OUTCOMES);
    }

    @Test
    void outcomeValuesAreTheOnesTheFunctionsPublishForEveryTerminalReason() throws ReflectiveOperationException {
        Method outcomeName = PowertoolsMetrics.class.getDeclaredMethod("outcomeName", RequestRecord.class);
        outcomeName.setAccessible(true);
        Set<String> published = new TreeSet<>(Set.of("succeeded"));
        for (FailureReason reason : FailureReason.values()) {
            published.add((String) outcomeName.invoke(null, failed(reason)));
        }
        assertThat(ShaperMetrics.OUTCOME_REASONS).containsExactlyInAnyOrderElementsOf(published);
        assertThat(published).contains(ShaperMetrics.DEADLINE_EXPIRED);
    }

    @Test
    void dashboardAndAlarmsReadOnlyPublishedNamesInTheFunctionsNamespaceWithTheirDimensions()
            throws IllegalAccessException {
        Set<String> published = metricNames(PowertoolsMetrics.class);
        // counted by a metric filter on the Notifier's log, not published by the code
        published.add(ShaperObservability.FAILED_WEBHOOKS);
        String dashboard = dev.findResources("AWS::CloudWatch::Dashboard").values().toString();
        Set<String> charted = new TreeSet<>();
        Matcher custom = Pattern.compile("\\[\"TrafficShaper\",\"([A-Za-z]+)\"").matcher(dashboard);
        while (custom.find()) {
            charted.add(custom.group(1));
        }
        assertThat(charted).isNotEmpty().isSubsetOf(published);
        assertThat(charted).contains(ShaperMetrics.QUEUE_DEPTH, ShaperMetrics.ADMITTED_TOKENS, ShaperMetrics.WAIT_TIME,
                ShaperMetrics.BEDROCK_THROTTLES, ShaperMetrics.OUTCOMES, ShaperMetrics.SETTLED_TOKENS,
                ShaperMetrics.REQUEUES);

        List<String> alarmMetrics = new ArrayList<>();
        dev.findResources("AWS::CloudWatch::Alarm").values().forEach(alarm -> collectCustomMetrics(alarm, alarmMetrics));
        assertThat(alarmMetrics).isNotEmpty();
        assertThat(new TreeSet<>(alarmMetrics)).isSubsetOf(published);
    }

    /** Every {@code TrafficShaper} metric an alarm reads, single or inside a math expression, with its dimensions checked. */
    @SuppressWarnings("unchecked")
    private static void collectCustomMetrics(Object node, List<String> into) {
        if (node instanceof Map<?, ?> map) {
            if ("TrafficShaper".equals(map.get("Namespace"))
                    && !ShaperObservability.FAILED_WEBHOOKS.equals(map.get("MetricName"))) {
                into.add(map.get("MetricName").toString());
                List<Map<String, Object>> dimensions = (List<Map<String, Object>>) map.get("Dimensions");
                List<String> names = dimensions.stream().map(d -> d.get("Name").toString()).sorted().toList();
                assertThat(names).isIn(List.of("Model", "Service"), List.of("Model", "Outcome", "Service"));
                assertThat(dimensions).contains(Map.of("Name", "Service", "Value", "traffic-shaper"));
            }
            map.values().forEach(value -> collectCustomMetrics(value, into));
        } else if (node instanceof List<?> list) {
            list.forEach(value -> collectCustomMetrics(value, into));
        }
    }

    @Test
    void theFailedWebhookFilterMatchesWhatTheNotifierLogs() throws java.io.IOException {
        String handler = java.nio.file.Files.readString(SynthesizedStacks.REPOSITORY.resolve(
                "functions/src/main/java/dev/trafficshaper/functions/aws/SqsWebhookAttempts.java"));
        dev.hasResourceProperties("AWS::Logs::MetricFilter", Map.of(
                "FilterPattern", "{ $.message = \"webhook not delivered*\" }",
                "MetricTransformations", List.of(software.amazon.awscdk.assertions.Match.objectLike(Map.of(
                        "MetricName", ShaperObservability.FAILED_WEBHOOKS,
                        "MetricNamespace", "TrafficShaper",
                        "MetricValue", "1")))));
        assertThat(handler).contains("LOG.warn(\"webhook not delivered after");
    }

    private static Set<String> metricNames(Class<?> type) throws IllegalAccessException {
        Set<String> names = new TreeSet<>();
        for (Field field : type.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
                    && !field.getName().equals("DEADLINE_EXPIRED")) {
                names.add((String) field.get(null));
            }
        }
        return names;
    }

    private static RequestRecord failed(FailureReason reason) {
        long now = 1_800_000_000_000L;
        return RequestRecord.builder().requestId("r").tenant("arn:aws:iam::123456789012:role/caller").modelKey("m")
                .state(RequestState.FAILED).failureReason(reason).estimate(TokenUsage.of(1, 1))
                .payloadRef(new PayloadRef(PayloadRef.Location.INLINE, "r", PayloadKind.REQUEST, "0".repeat(64), 2,
                        now))
                .expiresAtMillis(now).build();
    }
}
