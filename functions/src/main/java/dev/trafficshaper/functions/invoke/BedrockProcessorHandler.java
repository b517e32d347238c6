package dev.trafficshaper.functions.invoke;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
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
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public BedrockProcessorHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public BedrockProcessorHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: the invocation service: stores, the Bedrock invokers and client, the callback. */
    public static void prime(Shaper shaper) {
        shaper.invocations();
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
