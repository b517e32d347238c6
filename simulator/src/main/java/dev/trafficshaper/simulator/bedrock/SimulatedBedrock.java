package dev.trafficshaper.simulator.bedrock;

import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Bedrock's behaviour without the HTTP: resolves the model, validates, reserves the quota as
 * Bedrock does at request start, injects faults, waits out the generation, settles to actual usage.
 *
 * <p>Each request waits on its own thread; nothing here holds a lock while a generation runs, so
 * concurrent requests overlap as they do on the real service. The quota objects synchronise only
 * the instant of reservation and settlement.
 */
final class SimulatedBedrock {

    private final List<SimulatedModel> models;
    private final Map<String, SimulatedModel> byName = new HashMap<>();
    private final LatencyModel latency;
    private final double latencyScale;
    private final Faults faults;
    private final long defaultOutputTokens;
    private final Random random;
    private final Clock clock;

    SimulatedBedrock(List<SimulatedModel> models, LatencyModel latency, double latencyScale, Faults faults,
                     long defaultOutputTokens, long seed, Clock clock) {
        this.models = List.copyOf(models);
        this.latency = latency;
        this.latencyScale = latencyScale;
        this.faults = faults;
        this.defaultOutputTokens = defaultOutputTokens;
        this.random = new Random(seed);
        this.clock = clock;
        for (SimulatedModel model : models) {
            byName.put(model.config().key(), model);
            byName.put(model.config().modelId(), model);
        }
    }

    /** Accepts a catalog key, a model id, or an ARN ending in either. */
    SimulatedModel resolve(String modelIdentifier) {
        SimulatedModel model = byName.get(modelIdentifier);
        if (model == null && modelIdentifier.contains("/")) {
            model = byName.get(modelIdentifier.substring(modelIdentifier.lastIndexOf('/') + 1));
        }
        if (model == null) {
            throw new BedrockFailure(BedrockError.RESOURCE_NOT_FOUND,
                    "Could not resolve the foundation model from the provided model identifier.");
        }
        return model;
    }

    Completion complete(SimulatedModel model, Inference inference, SimulationHooks hooks) {
        model.called();
        try {
            Completion completion = generate(model, inference, hooks);
            model.succeeded(completion);
            return completion;
        } catch (BedrockFailure failure) {
            model.failed(failure.error());
            throw failure;
        }
    }

    long countTokens(SimulatedModel model, Prompt prompt, SimulationHooks hooks) {
        model.countedTokens();
        failIfAsked(hooks);
        return hooks.inputTokensOr(TokenCounter.count(prompt));
    }

    List<ModelStats> stats() {
        List<ModelStats> stats = new ArrayList<>();
        models.forEach(model -> stats.add(model.stats()));
        return stats;
    }

    private Completion generate(SimulatedModel model, Inference inference, SimulationHooks hooks) {
        ModelConfig config = model.config();
        if (inference.maxTokens() > config.maxTokensLimit()) {
            throw BedrockFailure.validation("The maximum tokens you requested exceeds the model limit of "
                    + config.maxTokensLimit() + ". Try again with a maximum tokens value that is lower than "
                    + config.maxTokensLimit() + ".");
        }
        long allowance = inference.maxTokens() == 0 ? config.maxTokensLimit() : inference.maxTokens();
        long input = hooks.inputTokensOr(TokenCounter.count(inference.prompt()));
        if (input > config.maxInputTokens()) {
            throw BedrockFailure.validation("Input is too long for requested model.");
        }
        failIfAsked(hooks);

        ProviderQuota quota = model.quota();
        Charge reservation = Charge.reservation(quota.quota(),
                new TokenUsage(input, allowance, hooks.cacheReadTokens(), hooks.cacheWriteTokens()));
        ProviderQuota.Reservation held = quota.tryReserve(reservation, clock.millis());
        if (held == null) {
            throw new BedrockFailure(BedrockError.THROTTLING, "Too many tokens, please wait before trying again.");
        }

        long wanted = hooks.outputTokens() >= 0 ? hooks.outputTokens() : defaultOutputTokens;
        long output = Math.min(wanted, allowance);
        TokenUsage actual = new TokenUsage(input, 0, hooks.cacheReadTokens(), hooks.cacheWriteTokens());
        try {
            double draw = random.nextDouble();
            if (draw < faults.serverErrorRate()) {
                pause(latency.timeToFirstTokenMillis());
                throw new BedrockFailure(BedrockError.INTERNAL_SERVER, "The server encountered an internal error.");
            }
            if (draw < faults.serverErrorRate() + faults.timeoutRate()) {
                pause(faults.timeoutMillis());
                throw new BedrockFailure(BedrockError.MODEL_TIMEOUT, "Model has timed out in processing the request.");
            }
            long waited = pause(latency.sample(output, random));
            actual = new TokenUsage(input, output, hooks.cacheReadTokens(), hooks.cacheWriteTokens());
            return new Completion(input, output, hooks.cacheReadTokens(), hooks.cacheWriteTokens(),
                    FillerText.ofTokens(output), wanted > allowance ? Completion.MAX_TOKENS : Completion.END_TURN,
                    waited);
        } finally {
            quota.settle(held, Charge.settlement(quota.quota(), actual), clock.millis());
        }
    }

    private static void failIfAsked(SimulationHooks hooks) {
        if (hooks.fault() != null) {
            throw new BedrockFailure(hooks.fault(), "Simulated " + hooks.fault().code() + " (requested by "
                    + SimulationHooks.FAULT + ").");
        }
    }

    /** Waits the modelled time scaled for the run; returns the milliseconds actually waited. */
    private long pause(long modelledMillis) {
        long millis = Math.round(modelledMillis * latencyScale);
        if (millis <= 0) {
            return 0;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BedrockFailure(BedrockError.SERVICE_UNAVAILABLE, "The simulator is shutting down.");
        }
        return millis;
    }
}
