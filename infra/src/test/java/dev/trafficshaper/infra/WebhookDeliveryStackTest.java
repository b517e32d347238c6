package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.composition.ShaperPorts;
import dev.trafficshaper.functions.aws.SqsWebhookAttempts;
import dev.trafficshaper.infra.compute.ShaperFunctions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Capture;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * The webhook delivery queue (standard, so the tenant groups make it a fair queue), its dead-letter
 * queue, the Notifier's event source and the DLQ alarm.
 */
class WebhookDeliveryStackTest {

    private final Template dev = SynthesizedStacks.development().template();

    @Test
    void theDeliveryQueueRedrivesToItsDeadLetterQueueAfterTheSchedulesLastAttempt() {
        Capture deadLetters = new Capture();
        dev.hasResourceProperties("AWS::SQS::Queue", Map.of(
                "VisibilityTimeout", 90,
                "SqsManagedSseEnabled", true,
                "RedrivePolicy", Map.of(
                        "deadLetterTargetArn", Map.of("Fn::GetAtt", List.of(deadLetters, "Arn")),
                        "maxReceiveCount", ShaperFunctions.DELIVERY_SCHEDULE.maxAttempts())));
        assertThat(deadLetters.asString()).contains("WebhookDeadLetters");
        assertThat(ShaperFunctions.DELIVERY_SCHEDULE.maxAttempts()).isEqualTo(12);
        Map<String, Map<String, Object>> dlq = dev.findResources("AWS::SQS::Queue");
        assertThat(dlq).hasEntrySatisfying(deadLetters.asString(), queue -> assertThat(queue.toString())
                .contains("MessageRetentionPeriod=" + 14 * 24 * 3600));
    }

    @Test
    void theNotifierConsumesTheQueueWithBoundedConcurrencyAndPartialBatchFailures() {
        dev.hasResourceProperties("AWS::Lambda::EventSourceMapping", Map.of(
                "BatchSize", ShaperFunctions.DELIVERY_BATCH,
                "ScalingConfig", Map.of("MaximumConcurrency", ShaperFunctions.DELIVERY_CONCURRENCY),
                "FunctionResponseTypes", List.of("ReportBatchItemFailures"),
                "FunctionName", Match.objectLike(Map.of())));
        assertThat(ShaperFunctions.DELIVERY_CONCURRENCY).isBetween(2, 10);
    }

    @Test
    void theDeliveryQueueIsAStandardQueueSoTenantGroupsMakeItAFairQueue() {
        Map<String, Map<String, Object>> queues = dev.findResources("AWS::SQS::Queue", Map.of(
                "Properties", Map.of("RedrivePolicy", Match.objectLike(Map.of(
                        "maxReceiveCount", ShaperFunctions.DELIVERY_SCHEDULE.maxAttempts())))));
        assertThat(queues).hasSize(1);
        Map<String, Object> webhooks = queues.values().iterator().next();
        @SuppressWarnings("unchecked")
        Map<String, Object> properties = (Map<String, Object>) webhooks.get("Properties");
        assertThat(properties).as("FIFO would serve each tenant's webhooks one at a time, in order")
                .doesNotContainKeys("FifoQueue", "ContentBasedDeduplication", "FifoThroughputLimit",
                        "DeduplicationScope");
        assertThat(properties).as("no queue-wide delay: a webhook is due at once").doesNotContainKey("DelaySeconds");
    }

    @Test
    void theNotifierTakesBatchesItCanAttemptSideBySideWithoutWaitingToFillThem() {
        Map<String, Map<String, Object>> mappings = dev.findResources("AWS::Lambda::EventSourceMapping",
                Map.of("Properties", Map.of("BatchSize", ShaperFunctions.DELIVERY_BATCH)));
        assertThat(mappings).hasSize(1);
        assertThat(mappings.values().iterator().next().toString()).as("no batching window")
                .doesNotContain("MaximumBatchingWindowInSeconds");
        assertThat(ShaperFunctions.DELIVERY_BATCH).as("every message of a batch attempted at once")
                .isLessThanOrEqualTo(SqsWebhookAttempts.PARALLEL_ATTEMPTS);
        assertThat(ShaperPorts.WEBHOOK_CONNECT_TIMEOUT).isLessThan(ShaperPorts.WEBHOOK_TIMEOUT);
        assertThat(ShaperPorts.WEBHOOK_TIMEOUT).as("a dead receiver holds a sender briefly")
                .isLessThanOrEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theNotifierIsToldTheQueueAndTheSchedule() {
        dev.hasResourceProperties("AWS::Lambda::Function", Map.of(
                "FunctionName", "TrafficShaper-dev-notifier",
                "Environment", Map.of("Variables", Match.objectLike(Map.of(
                        "DELIVERY_QUEUE_URL", Match.anyValue(),
                        "WEBHOOK_MAX_ATTEMPTS", "12",
                        "WEBHOOK_FIRST_RETRY_SECONDS", "30",
                        "WEBHOOK_MAX_RETRY_SECONDS", "7200")))));
    }

    @Test
    void aDeadLetteredWebhookRaisesTheAlarm() {
        dev.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of(
                "AlarmDescription", Match.stringLikeRegexp("Webhooks wait in the delivery dead-letter queue.*"),
                "MetricName", "ApproximateNumberOfMessagesVisible",
                "Namespace", "AWS/SQS",
                "Dimensions", List.of(Map.of("Name", "QueueName", "Value", Map.of("Fn::GetAtt",
                        List.of(Match.stringLikeRegexp(".*WebhookDeadLetters.*"), "QueueName")))),
                "Threshold", 1,
                "ComparisonOperator", "GreaterThanOrEqualToThreshold"));
    }
}
