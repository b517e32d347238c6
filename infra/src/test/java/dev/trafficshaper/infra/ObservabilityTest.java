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
    void everyAlarmNotifiesTheEncryptedTopic() {
        dev.resourceCountIs("AWS::CloudWatch::Alarm", 7);
        dev.allResourcesProperties("AWS::CloudWatch::Alarm", Map.of(
                "AlarmActions", List.of(Map.of("Ref", Match.stringLikeRegexp("ObservabilityAlarmTopic.*")))));
        dev.hasResourceProperties("AWS::SNS::Topic", Map.of("KmsMasterKeyId", Match.anyValue()));
        SynthesizedStacks.production().template().hasResourceProperties("AWS::SNS::Subscription", Map.of(
                "Protocol", "email", "Endpoint", "ops@example.com"));
    }
}
