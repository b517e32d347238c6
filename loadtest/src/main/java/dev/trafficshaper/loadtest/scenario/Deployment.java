package dev.trafficshaper.loadtest.scenario;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.trafficshaper.lifecycle.DispatchMode;
import java.util.List;

/**
 * What surrounds the drainer in production, for the {@code shaper} strategy, which runs the
 * production drainer and Bedrock Processor on virtual time.
 *
 * @param dispatch              how Lambda runs the Bedrock Processor after the drainer's dispatch,
 *                              and the Queue Processor after a wake
 * @param settlementDelayMillis from Bedrock's answer to the request's status write that the
 *                              drainer's next poll reads (storing the result, the usage settlement
 *                              and the status: three writes)
 * @param drainerLimitSeconds   how long one drainer runs before it hands off: the Queue Processor's
 *                              15-minute limit less the 30 s it keeps back
 * @param drainerCrashSeconds   times (seconds into the run) at which the drainer then running, or
 *                              the next one to run, dies without releasing its lease; its lease
 *                              expires and the 1-minute safety net wakes a successor
 * @param dispatchMode          {@code INLINE} (the drainer makes the calls that fit in its
 *                              invocation itself, as the deployed stack does by default: no invoke
 *                              delay and no cold start, Bedrock's latency and the settlement delay
 *                              still; it hands off by {@link dev.trafficshaper.lifecycle.DrainWindow}'s
 *                              rule within an invocation of {@code drainerLimitSeconds} + 30 s) or
 *                              {@code ASYNC} (each admitted request an asynchronous invoke of the
 *                              Bedrock Processor, {@code DISPATCH_MODE=async})
 */
public record Deployment(LambdaModel dispatch, long settlementDelayMillis, long drainerLimitSeconds,
                         List<Long> drainerCrashSeconds, DispatchMode dispatchMode) {

    /** The deployment as configured by the CDK app, on a quiet day: the calls in the drainer. */
    public static final Deployment DEFAULT = new Deployment(LambdaModel.DEFAULT, 30, 870, List.of(),
            DispatchMode.INLINE);

    /** A deployment dispatching each call asynchronously to the Bedrock Processor ({@code DISPATCH_MODE=async}). */
    public static Deployment dispatchingAsync(LambdaModel dispatch, long settlementDelayMillis,
            long drainerLimitSeconds, List<Long> drainerCrashSeconds) {
        return new Deployment(dispatch, settlementDelayMillis, drainerLimitSeconds, drainerCrashSeconds,
                DispatchMode.ASYNC);
    }

    public Deployment {
        dispatch = dispatch == null ? LambdaModel.DEFAULT : dispatch;
        dispatchMode = dispatchMode == null ? DispatchMode.INLINE : dispatchMode;
        drainerCrashSeconds = drainerCrashSeconds == null ? List.of() : List.copyOf(drainerCrashSeconds);
        if (settlementDelayMillis < 0 || drainerLimitSeconds < 10) {
            throw new IllegalArgumentException("deployment: settlementDelayMillis must not be negative and"
                    + " drainerLimitSeconds must be at least 10");
        }
        for (long at : drainerCrashSeconds) {
            if (at < 0) {
                throw new IllegalArgumentException("deployment: drainerCrashSeconds must not be negative");
            }
        }
    }

    /**
     * A slow day: dispatch with a 2 s p99 and 2 s cold starts, settlements 500 ms late, a handoff
     * every 2 minutes, and one drainer crash at {@code crashAtSeconds}.
     */
    public static Deployment pessimistic(long crashAtSeconds) {
        return new Deployment(LambdaModel.PESSIMISTIC, 500, 120, List.of(crashAtSeconds), DispatchMode.INLINE);
    }

    /** This deployment with {@code mode}. */
    public Deployment withDispatchMode(DispatchMode mode) {
        return new Deployment(dispatch, settlementDelayMillis, drainerLimitSeconds, drainerCrashSeconds, mode);
    }

    /** The Queue Processor's whole invocation: its drain time plus the 30 s it keeps back. */
    @JsonIgnore
    public long drainerInvocationMillis() {
        return (drainerLimitSeconds + 30) * 1_000;
    }
}
