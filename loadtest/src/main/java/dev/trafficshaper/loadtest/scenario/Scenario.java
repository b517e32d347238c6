package dev.trafficshaper.loadtest.scenario;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.simulator.provider.ShortHorizon;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.pacing.PacerSettings;
import java.util.List;

/**
 * A workload and the provider it meets: the model's quota and how it is metered, latency, faults,
 * traffic phases, token sizes, lanes, tenants, clients, the estimation error of client-side token
 * counts, and the shaper's settings. Built-in scenarios live in {@link BuiltInScenarios}; any
 * scenario can also be read from JSON with {@link ScenarioFile}.
 *
 * @param quotaModel         token-bucket, fixed-window or sliding-window
 * @param backgroundLoad     share of the quota used by traffic the strategies cannot see
 * @param interactiveShare   share of requests in the interactive lane
 * @param tenants            number of tenants the requests are spread over
 * @param clients            client instances (for client-bucket and sdk-adaptive)
 * @param estimationError    relative error of a client's input-token estimate (uniform ±)
 * @param shaper             the shaper's pacer settings (default: production defaults)
 * @param inputEstimateMargin safety margin the shaper adds to input estimates
 * @param windowPacerTarget  target of the reference implementation's pacer (0.85)
 * @param tenantWeights      share of the requests each tenant sends (default: equal shares); its
 *                           length is the number of tenants
 * @param deadlineSeconds    each request's deadline after its arrival (3,600)
 * @param deployment         what surrounds the production drainer (see {@link Deployment})
 * @param shortHorizon       a sub-second limit under the per-minute meter (off by default; see
 *                           {@link ShortHorizon})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Scenario(
        String name,
        String description,
        Quota quota,
        String quotaModel,
        Leniency leniency,
        Double backgroundLoad,
        LatencyModel latency,
        Faults faults,
        List<Phase> phases,
        TokenDistribution inputTokens,
        TokenDistribution outputTokens,
        Long maxTokens,
        Double interactiveShare,
        Integer tenants,
        Integer clients,
        Double estimationError,
        PacerSettings shaper,
        Double inputEstimateMargin,
        Double windowPacerTarget,
        List<Double> tenantWeights,
        Long deadlineSeconds,
        Deployment deployment,
        ShortHorizon shortHorizon) {

    public Scenario {
        require(name != null && !name.isBlank(), "name is required");
        require(quota != null, "quota is required, e.g. {\"tpm\": 4000000}");
        quotaModel = quotaModel == null ? QuotaModel.TOKEN_BUCKET.wireName() : quotaModel;
        QuotaModel.fromWireName(quotaModel);
        leniency = leniency == null ? Leniency.STRICT : leniency;
        backgroundLoad = backgroundLoad == null ? 0.0 : backgroundLoad;
        require(backgroundLoad >= 0 && backgroundLoad < 1, "backgroundLoad must be in [0, 1)");
        latency = latency == null ? new LatencyModel(400, 8, 0.2) : latency;
        faults = faults == null ? Faults.NONE : faults;
        require(phases != null && !phases.isEmpty(), "phases: at least one phase is required");
        require(inputTokens != null, "inputTokens is required");
        require(outputTokens != null, "outputTokens is required");
        require(maxTokens != null && maxTokens >= 1, "maxTokens must be at least 1");
        interactiveShare = interactiveShare == null ? 0.0 : interactiveShare;
        require(interactiveShare >= 0 && interactiveShare <= 1, "interactiveShare must be in [0, 1]");
        tenants = tenants == null ? 1 : tenants;
        require(tenants >= 1, "tenants must be at least 1");
        clients = clients == null ? 1 : clients;
        require(clients >= 1, "clients must be at least 1");
        estimationError = estimationError == null ? 0.0 : estimationError;
        require(estimationError >= 0 && estimationError < 1, "estimationError must be in [0, 1)");
        shaper = shaper == null ? PacerSettings.defaults() : shaper.toBuilder().build();
        inputEstimateMargin = inputEstimateMargin == null
                ? estimationError / (1 - estimationError) : inputEstimateMargin;
        require(inputEstimateMargin >= 0, "inputEstimateMargin must not be negative");
        windowPacerTarget = windowPacerTarget == null ? 0.85 : windowPacerTarget;
        require(windowPacerTarget > 0 && windowPacerTarget <= 1, "windowPacerTarget must be in (0, 1]");
        if (tenantWeights != null) {
            tenantWeights = List.copyOf(tenantWeights);
            require(!tenantWeights.isEmpty() && tenantWeights.stream().allMatch(w -> w != null && w > 0),
                    "tenantWeights must be positive shares, one per tenant");
            require(tenants == 1 || tenants == tenantWeights.size(), "tenantWeights needs one share per tenant");
            tenants = tenantWeights.size();
        }
        deadlineSeconds = deadlineSeconds == null ? 3_600L : deadlineSeconds;
        require(deadlineSeconds >= 1, "deadlineSeconds must be at least 1");
        deployment = deployment == null ? Deployment.DEFAULT : deployment;
        shortHorizon = shortHorizon == null ? ShortHorizon.OFF : shortHorizon;
    }

    /** How long the traffic phases last together, in seconds. */
    public long arrivalSeconds() {
        return phases.stream().mapToLong(Phase::durationSeconds).sum();
    }

    public QuotaModel meter() {
        return QuotaModel.fromWireName(quotaModel);
    }

    public Scenario withQuotaModel(QuotaModel model) {
        return new Scenario(name, description, quota, model.wireName(), leniency, backgroundLoad, latency, faults,
                phases, inputTokens, outputTokens, maxTokens, interactiveShare, tenants, clients, estimationError,
                shaper, inputEstimateMargin, windowPacerTarget, tenantWeights, deadlineSeconds, deployment, shortHorizon);
    }

    public Scenario withLeniency(Leniency newLeniency) {
        return new Scenario(name, description, quota, quotaModel, newLeniency, backgroundLoad, latency, faults,
                phases, inputTokens, outputTokens, maxTokens, interactiveShare, tenants, clients, estimationError,
                shaper, inputEstimateMargin, windowPacerTarget, tenantWeights, deadlineSeconds, deployment, shortHorizon);
    }

    public Scenario withPhases(List<Phase> newPhases) {
        return new Scenario(name, description, quota, quotaModel, leniency, backgroundLoad, latency, faults,
                newPhases, inputTokens, outputTokens, maxTokens, interactiveShare, tenants, clients, estimationError,
                shaper, inputEstimateMargin, windowPacerTarget, tenantWeights, deadlineSeconds, deployment, shortHorizon);
    }

    public Scenario withQuota(Quota newQuota) {
        return new Scenario(name, description, newQuota, quotaModel, leniency, backgroundLoad, latency, faults,
                phases, inputTokens, outputTokens, maxTokens, interactiveShare, tenants, clients, estimationError,
                shaper, inputEstimateMargin, windowPacerTarget, tenantWeights, deadlineSeconds, deployment, shortHorizon);
    }

    public Scenario withDeployment(Deployment newDeployment) {
        return new Scenario(name, description, quota, quotaModel, leniency, backgroundLoad, latency, faults,
                phases, inputTokens, outputTokens, maxTokens, interactiveShare, tenants, clients, estimationError,
                shaper, inputEstimateMargin, windowPacerTarget, tenantWeights, deadlineSeconds, newDeployment, shortHorizon);
    }

    public Scenario withShortHorizon(ShortHorizon newShortHorizon) {
        return new Scenario(name, description, quota, quotaModel, leniency, backgroundLoad, latency, faults,
                phases, inputTokens, outputTokens, maxTokens, interactiveShare, tenants, clients, estimationError,
                shaper, inputEstimateMargin, windowPacerTarget, tenantWeights, deadlineSeconds, deployment,
                newShortHorizon);
    }

    public Scenario withShaper(PacerSettings newShaper) {
        return new Scenario(name, description, quota, quotaModel, leniency, backgroundLoad, latency, faults,
                phases, inputTokens, outputTokens, maxTokens, interactiveShare, tenants, clients, estimationError,
                newShaper, inputEstimateMargin, windowPacerTarget, tenantWeights, deadlineSeconds, deployment,
                shortHorizon);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("scenario: " + message);
        }
    }
}
