package dev.trafficshaper.functions.invoke;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.lifecycle.InvocationService;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.trafficshaper.functions.Logs;

/**
 * The Bedrock Processor, invoked asynchronously by the drainer with {@code {"model", "requestId"}}.
 * A repeated event for the same admission finds the claim taken and returns {@code DUPLICATE}.
 */
public final class BedrockProcessorHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

    private static final Logger LOG = LoggerFactory.getLogger(BedrockProcessorHandler.class);

    private final Shaper shaper;

    public BedrockProcessorHandler() {
        this(Shaper.fromEnvironment());
    }

    public BedrockProcessorHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
        Object requestId = event.get("requestId");
        if (requestId == null) {
            throw new IllegalArgumentException("event field 'requestId' is required");
        }
        return Logs.with(context, "requestId", requestId, () -> {
            InvocationService.Result result = shaper.invocations().process(requestId.toString());
            LOG.info("processed: {}", result);
            return Map.of("requestId", requestId.toString(), "result", result.name());
        });
    }
}
