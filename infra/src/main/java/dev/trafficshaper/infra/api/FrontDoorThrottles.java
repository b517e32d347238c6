package dev.trafficshaper.infra.api;

import dev.trafficshaper.infra.config.InvalidDeploymentException;
import dev.trafficshaper.infra.config.PlatformQuotas;
import dev.trafficshaper.infra.config.ThrottleOverrides;

/**
 * The API's method throttles, sized from the limits each method feeds, so that API Gateway refuses
 * a surplus with {@code 429} + {@code Retry-After} before a quota behind it does, and so that
 * status polls never take the capacity submissions need.
 *
 * <p>Why two throttles: a submission costs one {@code StartExecution} and the execution's state
 * transitions, both scarce account-wide quotas; a status read costs one short Lambda call and a
 * few key reads. One stage-wide bucket for both let polling awaits starve submissions.
 *
 * <p>The formula ({@code H} = {@value #HEADROOM} keeps a tenth of each quota for retries, the
 * console and other workflows of the account; {@code T} = {@value #TRANSITIONS_PER_REQUEST}
 * transitions on the lifecycle's longest path: Admit, Finalize, DeliverFailure, Failed):
 * <pre>
 *   submit rate  = H × min(StartExecution rate, transition rate / T)
 *   submit burst = H × min(StartExecution burst, transition burst / T)
 *   status rate  = min(P × submit rate, H × API account rate − submit rate − other rate)
 *   status burst = min(2 × status rate, H × API account burst − submit burst − other burst)
 * </pre>
 * where {@code P} = {@value #POLLS_PER_REQUEST} is the status reads one request costs when its
 * callers follow the ETA-based {@code Retry-After} (the Java client's await makes at most that
 * many) and {@code other} is {@code GET /v1/models} ({@link #OTHER}, the stage default).
 *
 * <p>Load states, at the unraised defaults (300/s StartExecution, 1,500/s transitions): 270
 * submissions/s and 1,350 reads/s. At the design target (1,000 submissions/s) StartExecution must
 * refill at 1,112/s and transitions at 4,445/s: docs/deploy.md lists the quota raises. Any value
 * can be set in the stage settings ({@link ThrottleOverrides}); the sum of the three rates must
 * stay within the account's API Gateway throttle, which every API of the account shares.
 */
public record FrontDoorThrottles(MethodThrottle submit, MethodThrottle status, MethodThrottle other) {

    public static final double HEADROOM = 0.9;
    public static final int TRANSITIONS_PER_REQUEST = 4;
    public static final int POLLS_PER_REQUEST = 5;
    /** {@code GET /v1/models} and any method without its own throttle: dashboards and operators. */
    public static final MethodThrottle OTHER = new MethodThrottle(25, 50);

    public static FrontDoorThrottles size(PlatformQuotas quotas, ThrottleOverrides overrides) {
        double submitRate = Math.floor(HEADROOM * Math.min(quotas.startExecutionRate(),
                quotas.transitionRate() / TRANSITIONS_PER_REQUEST));
        int submitBurst = (int) Math.floor(HEADROOM * Math.min(quotas.startExecutionBurst(),
                (double) quotas.transitionBurst() / TRANSITIONS_PER_REQUEST));
        MethodThrottle submit = new MethodThrottle(Math.max(1, submitRate), Math.max(1, submitBurst))
                .overriddenBy(overrides.submitRate(), overrides.submitBurst());

        double apiRate = HEADROOM * quotas.apiAccountRate();
        double apiBurst = HEADROOM * quotas.apiAccountBurst();
        double statusRate = Math.floor(Math.min(POLLS_PER_REQUEST * submit.rate(),
                apiRate - submit.rate() - OTHER.rate()));
        if (statusRate < 1 && overrides.statusRate() == null) {
            throw new InvalidDeploymentException("submitRateLimit " + submit.rate() + "/s leaves no room for status"
                    + " reads within the account's API Gateway throttle of " + quotas.apiAccountRate() + "/s");
        }
        int statusBurst = (int) Math.floor(Math.min(2 * statusRate, apiBurst - submit.burst() - OTHER.burst()));
        MethodThrottle status = new MethodThrottle(Math.max(1, statusRate), Math.max(1, statusBurst))
                .overriddenBy(overrides.statusRate(), overrides.statusBurst());

        double total = submit.rate() + status.rate() + OTHER.rate();
        if (total > quotas.apiAccountRate()) {
            throw new InvalidDeploymentException("submitRateLimit " + submit.rate() + "/s + statusRateLimit "
                    + status.rate() + "/s + " + OTHER.rate() + "/s for the other methods exceed the account's API"
                    + " Gateway throttle of " + quotas.apiAccountRate() + "/s (-c apiAccountRate): API Gateway"
                    + " would throttle the whole account before these limits act");
        }
        return new FrontDoorThrottles(submit, status, OTHER);
    }

    /** The most the front door lets through per second, all methods together (the WAF's reference). */
    public double totalRate() {
        return submit.rate() + status.rate() + other.rate();
    }
}
