package dev.trafficshaper.functions.drain;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.DrainWindow;
import dev.trafficshaper.lifecycle.SafetyNet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.trafficshaper.functions.Logs;

/**
 * The Queue Processor. Invoked with {@code {"model": key}} (a wake-up) it drains that model until
 * idle or until its handoff time, then hands off: dispatching asynchronously, {@value #HANDOFF_MARGIN_MILLIS} ms
 * before the function's time limit; running calls itself, early enough for its longest call to end
 * before that limit ({@link DrainWindow}), and it returns once its calls have ended. Invoked by the
 * 1-minute schedule (no model) it runs the safety net ({@link SafetyNet}): a drainer for every
 * model with queued work and no lease holder, and the overdue items of those models expired.
 */
public final class QueueProcessorHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

    /** Time kept back for the last admissions, the status publish and the handoff. */
    static final long HANDOFF_MARGIN_MILLIS = DrainWindow.HANDOFF_MARGIN_MILLIS;
    private static final Logger LOG = LoggerFactory.getLogger(QueueProcessorHandler.class);

    private final Shaper shaper;
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public QueueProcessorHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public QueueProcessorHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: the drainer and the safety net with their stores, dispatch and callback. */
    public static void prime(Shaper shaper) {
        shaper.drains();
        shaper.safetyNet();
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
        Object model = event == null ? null : event.get("model");
        return Logs.with(context, "model", model == null ? "*" : model, () -> {
            long now = System.currentTimeMillis();
            if (model == null) {
                return sweep(now);
            }
            long end = now + context.getRemainingTimeInMillis();
            try {
                DrainService.Report report = shaper.drains().drainInvocation(model.toString(),
                        context.getAwsRequestId(), now, end);
                LOG.info("drain ended: {}", report);
                Map<String, Object> result = new LinkedHashMap<>();
                result.put("model", report.modelKey());
                result.put("leaseGranted", report.leaseGranted());
                result.put("admitted", report.admitted());
                result.put("expired", report.expired());
                result.put("throttled", report.throttled());
                result.put("stoppedBecause", report.stoppedBecause());
                return result;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("drain interrupted", e);
            }
        });
    }

    private Map<String, Object> sweep(long now) {
        SafetyNet.Sweep sweep = shaper.safetyNet().sweep(now);
        LOG.info("safety net: woke {}, expired {}, left {} to their lease holders", sweep.woken(), sweep.expired(),
                sweep.leased());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("woken", sweep.woken());
        result.put("expired", sweep.expired());
        result.put("leased", sweep.leased());
        return result;
    }
}
