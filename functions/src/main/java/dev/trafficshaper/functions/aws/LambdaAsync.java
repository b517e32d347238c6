package dev.trafficshaper.functions.aws;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.lifecycle.DrainerWake;
import dev.trafficshaper.lifecycle.InvocationDispatch;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;

/**
 * Asynchronous Lambda invokes: the drainer dispatching an admitted request to the Bedrock
 * Processor, and anyone waking the Queue Processor for a model. Lambda queues the event and
 * returns at once; the Bedrock Processor's async config allows zero retries and sends failures to
 * a dead-letter queue, so a dispatch is never silently repeated or lost.
 */
public final class LambdaAsync implements InvocationDispatch, DrainerWake {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LambdaClient lambda;
    private final String bedrockProcessor;
    private final String queueProcessor;

    public LambdaAsync(LambdaClient lambda, String bedrockProcessor, String queueProcessor) {
        this.lambda = lambda;
        this.bedrockProcessor = bedrockProcessor;
        this.queueProcessor = queueProcessor;
    }

    @Override
    public void dispatch(String modelKey, String requestId) {
        ObjectNode event = JSON.createObjectNode().put("model", modelKey).put("requestId", requestId);
        invoke(bedrockProcessor, event);
    }

    @Override
    public void wake(String modelKey) {
        invoke(queueProcessor, JSON.createObjectNode().put("model", modelKey).put("source", "wake"));
    }

    private void invoke(String function, ObjectNode event) {
        lambda.invoke(b -> b.functionName(function).invocationType(InvocationType.EVENT)
                .payload(SdkBytes.fromUtf8String(event.toString())));
    }
}
