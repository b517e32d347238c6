package dev.trafficshaper.functions.notify;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.functions.Logs;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
import java.util.Map;

/**
 * The Notifier, invoked by the delivery queue's event source mapping, {@code {"Records": [...]}}:
 * one signed webhook attempt per message, the batch's attempts side by side, each with a short
 * timeout, retried by SQS on the delivery schedule ({@code SqsWebhookAttempts}); answers the failed
 * messages, and any still running near the invocation's time limit, as batch item failures.
 *
 * <p>It is no step of the state machine: whoever writes a request's terminal state queues its
 * webhook and publishes its outcome event before resuming the execution ({@code Notifier}).
 */
public final class NotifierHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

    /** Time kept to answer the batch item failures after the attempts' wait: a timed-out invocation reports nothing. */
    static final long REPLY_MARGIN_MILLIS = 2_000;

    private final Shaper shaper;
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public NotifierHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public NotifierHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: the request store; the webhook sender, which reads the signing key, is left to first use. */
    public static void prime(Shaper shaper) {
        shaper.requests();
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
        if (!event.containsKey("Records")) {
            throw new IllegalArgumentException("the Notifier reads the delivery queue; the event has no 'Records'");
        }
        long budget = context == null ? Long.MAX_VALUE : context.getRemainingTimeInMillis() - REPLY_MARGIN_MILLIS;
        return Logs.with(context, "source", "delivery-queue",
                () -> shaper.webhookAttempts().handle(Json.tree(event), budget));
    }
}
