package dev.trafficshaper.infra.config;

/**
 * The account's regional limits that the shaper's front door feeds, as the deployment declares them
 * (Service Quotas shows the applied values; docs/deploy.md lists the codes). The defaults are the
 * unraised values of the large regions; a deployment that raised a quota says so in context, and
 * the API throttles grow with it ({@link dev.trafficshaper.infra.api.FrontDoorThrottles}).
 *
 * @param startExecutionRate   Step Functions {@code StartExecution} refill rate per second
 * @param startExecutionBurst  Step Functions {@code StartExecution} bucket size
 * @param transitionRate       Standard-workflow state transitions per second (refill)
 * @param transitionBurst      state-transition bucket size
 * @param lambdaConcurrency    the account's concurrent Lambda executions in the region
 * @param apiAccountRate       API Gateway's account-level throttle, requests per second, shared by
 *                             every API of the account in the region
 * @param apiAccountBurst      API Gateway's account-level burst
 */
public record PlatformQuotas(
        double startExecutionRate,
        int startExecutionBurst,
        double transitionRate,
        int transitionBurst,
        int lambdaConcurrency,
        double apiAccountRate,
        int apiAccountBurst) {

    public static final PlatformQuotas DEFAULTS = new PlatformQuotas(300, 800, 1_500, 1_500, 1_000, 10_000, 5_000);

    public PlatformQuotas {
        positive("startExecutionRate", startExecutionRate);
        positive("startExecutionBurst", startExecutionBurst);
        positive("stateTransitionRate", transitionRate);
        positive("stateTransitionBurst", transitionBurst);
        positive("accountConcurrency", lambdaConcurrency);
        positive("apiAccountRate", apiAccountRate);
        positive("apiAccountBurst", apiAccountBurst);
    }

    private static void positive(String name, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new InvalidDeploymentException(name + " must be a positive number, was " + value);
        }
    }
}
