package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class ObservabilityTest {

    private final Template dev = SynthesizedStacks.development().template();

    @Test
    void dashboardChartsWhatAnOperatorWatches() {
        String body = dev.findResources("AWS::CloudWatch::Dashboard").values().toString();
        for (String metric : List.of("QueueDepth", "AdmittedTokens", "WaitTime", "BedrockThrottles", "Outcomes",
                "ApproximateNumberOfMessagesVisible")) {
            assertThat(body).contains(metric);
        }
        assertThat(body).contains("p50", "p99", "utilisation", "4000000", "deadline_expired");
    }

    @ParameterizedTest
    @ValueSource(strings = {"nova-lite", "claude-sonnet"})
    void eachModelAlarmsOnAnyThrottleAnyExpiryAndAStalledDrainer(String model) {
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "MetricName", "BedrockThrottles",
                "Namespace", "TrafficShaper",
                "Dimensions", Match.arrayWith(List.of(Map.of("Name", "Model", "Value", model))),
                "Threshold", 1,
                "ComparisonOperator", "GreaterThanOrEqualToThreshold"));
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "MetricName", "Outcomes",
                "Dimensions", Match.arrayWith(List.of(
                        Map.of("Name", "Model", "Value", model),
                        Map.of("Name", "Outcome", "Value", "deadline_expired"))),
                "Threshold", 1));
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "AlarmDescription", Match.stringLikeRegexp("Work is waiting for " + model + ".*"),
                "EvaluationPeriods", 2,
                "Metrics", Match.arrayWith(List.of(Match.objectLike(Map.of(
                        "Expression", Match.stringLikeRegexp(".*dispatched.*")))))));
    }

    @Test
    void deadLetterQueueAlarmsAsSoonAsAMessageArrives() {
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "MetricName", "ApproximateNumberOfMessagesVisible",
                "Namespace", "AWS/SQS",
                "Threshold", 1));
    }

    @Test
    void theTableAlarmsOnAnyReadOrWriteThrottle() {
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "AlarmDescription", Match.stringLikeRegexp("DynamoDB throttled.*"),
                "Threshold", 1,
                "Metrics", Match.arrayWith(List.of(metricStat("AWS/DynamoDB", "ReadThrottleEvents")))));
        // the expression's metrics come in no fixed order: each is checked on its own
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "AlarmDescription", Match.stringLikeRegexp("DynamoDB throttled.*"),
                "Metrics", Match.arrayWith(List.of(metricStat("AWS/DynamoDB", "WriteThrottleEvents")))));
    }

    @Test
    void lambdaThrottlesOfEveryFunctionButTheCappedDrainerAndTheAccountsConcurrencyAlarm() {
        Map<String, Map<String, Object>> alarms = dev.findResources("AWS::CloudWatch::Alarm", Map.of(
                "Properties", Map.of("AlarmDescription", Match.stringLikeRegexp("Lambda throttled.*"))));
        assertThat(alarms).hasSize(1);
        String alarm = alarms.values().toString();
        assertThat(alarm.split("MetricName=Throttles", -1)).hasSize(7);
        assertThat(alarm).doesNotContain("FunctionsQueueProcessor");
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "Namespace", "AWS/Lambda",
                "MetricName", "ConcurrentExecutions",
                "Statistic", "Maximum",
                "Threshold", 800,
                "EvaluationPeriods", 3));
    }

    @Test
    void stepFunctionsThrottlesAlarmForExecutionsAndTheApisTheLifecycleCalls() {
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "Namespace", "AWS/States",
                "MetricName", "ExecutionThrottled",
                "Dimensions", List.of(Match.objectLike(Map.of("Name", "StateMachineArn"))),
                "Threshold", 1));
        String apiAlarm = dev.findResources("AWS::CloudWatch::Alarm", Map.of("Properties", Map.of(
                "AlarmDescription", Match.stringLikeRegexp("Step Functions throttled StartExecution.*"))))
                .values().toString();
        assertThat(apiAlarm).contains("ThrottledEvents", "StartExecution", "SendTaskSuccess", "SendTaskFailure");
    }

    @Test
    void theBedrockProcessorsAsynchronousQueueAlarmsOnDroppedAndOldEvents() {
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "Namespace", "AWS/Lambda",
                "MetricName", "AsyncEventsDropped",
                "Dimensions", List.of(Map.of("Name", "FunctionName",
                        "Value", Map.of("Ref", Match.stringLikeRegexp("FunctionsBedrockProcessorFunction.*")))),
                "Threshold", 1));
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "Namespace", "AWS/Lambda",
                "MetricName", "AsyncEventAge",
                "Statistic", "Maximum",
                "Threshold", 60000,
                "ComparisonOperator", "GreaterThanThreshold"));
    }

    @Test
    void aWebhookThatFailedEveryAttemptAlarms() {
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "Namespace", "TrafficShaper",
                "MetricName", "FailedWebhooks",
                "Threshold", 1));
        String dashboard = dev.findResources("AWS::CloudWatch::Dashboard").values().toString();
        assertThat(dashboard).contains("FailedWebhooks", "AsyncEventAge", "ExecutionThrottled", "WriteThrottleEvents",
                "ConcurrentExecutions");
    }

    private static Object metricStat(String namespace, String metricName) {
        return Match.objectLike(Map.of("MetricStat", Match.objectLike(Map.of(
                "Metric", Match.objectLike(Map.of("Namespace", namespace, "MetricName", metricName))))));
    }

    @Test
    void everyAlarmNotifiesTheEncryptedTopic() {
        dev.resourceCountIs("AWS::CloudWatch::Alarm", 16);
        dev.allResourcesProperties("AWS::CloudWatch::Alarm", Map.of(
                "AlarmActions", List.of(Map.of("Ref", Match.stringLikeRegexp("ObservabilityAlarmTopic.*")))));
        dev.hasResourceProperties("AWS::SNS::Topic", Map.of("KmsMasterKeyId", Match.anyValue()));
        SynthesizedStacks.production().template().hasResourceProperties("AWS::SNS::Subscription", Map.of(
                "Protocol", "email", "Endpoint", "ops@example.com"));
    }
}
