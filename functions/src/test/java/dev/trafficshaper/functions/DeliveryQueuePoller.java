package dev.trafficshaper.functions;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.functions.notify.NotifierHandler;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Plays the delivery queue's event source mapping: receives a batch, hands it to the Notifier as
 * a Lambda SQS event, and deletes the messages it did not report as batch item failures.
 */
final class DeliveryQueuePoller {

    private DeliveryQueuePoller() {
    }

    /**
     * One short-poll receive of up to 10 messages; after an empty one, a pause of 100 ms. Never a long
     * poll: the emulator serves one request at a time, and a waiting receive would hold every other
     * call. Returns how many messages were handed over.
     */
    static int receiveAndHandle(SqsClient sqs, String queueUrl, Shaper shaper) {
        return receiveAndHandle(sqs, queueUrl, shaper, message -> { });
    }

    /** As {@link #receiveAndHandle(SqsClient, String, Shaper)}, showing {@code seen} each message received (with its group) first. */
    static int receiveAndHandle(SqsClient sqs, String queueUrl, Shaper shaper, Consumer<Message> seen) {
        List<Message> messages = sqs.receiveMessage(b -> b.queueUrl(queueUrl).waitTimeSeconds(0).maxNumberOfMessages(10)
                .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                        MessageSystemAttributeName.MESSAGE_GROUP_ID)).messages();
        messages.forEach(seen);
        if (messages.isEmpty()) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
            return 0;
        }
        ObjectNode event = Json.MAPPER.createObjectNode();
        ArrayNode records = event.putArray("Records");
        for (Message m : messages) {
            records.addObject().put("messageId", m.messageId()).put("receiptHandle", m.receiptHandle())
                    .put("body", m.body()).put("eventSource", "aws:sqs").putObject("attributes")
                    .put("ApproximateReceiveCount", m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
        }
        Map<String, Object> answer = new NotifierHandler(shaper).handleRequest(
                Json.MAPPER.convertValue(event, new TypeReference<Map<String, Object>>() { }),
                new FakeContext("notifier", 60_000));
        @SuppressWarnings("unchecked")
        List<Map<String, String>> failures = (List<Map<String, String>>) answer.get("batchItemFailures");
        List<String> failed = failures.stream().map(f -> f.get("itemIdentifier")).toList();
        for (Message m : messages) {
            if (!failed.contains(m.messageId())) {
                sqs.deleteMessage(b -> b.queueUrl(queueUrl).receiptHandle(m.receiptHandle()));
            }
        }
        return messages.size();
    }
}
