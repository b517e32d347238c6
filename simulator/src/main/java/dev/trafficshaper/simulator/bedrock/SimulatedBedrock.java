package dev.trafficshaper.simulator.bedrock;

import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.MediaRule;
import dev.trafficshaper.submission.PromptContent;
import dev.trafficshaper.submission.TokenRule;
import java.util.Optional;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Bedrock's behaviour without the HTTP: resolves the model, validates, counts the prompt by the
 * shaper's own rule (text, images and documents alike), reads or writes the prompt cache, reserves
 * the quota as Bedrock does at request start, injects faults, waits out the generation (or calls a
 * tool, see {@link ToolUseHook}), settles to actual usage.
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

    /**
     * The model an identifier names on an endpoint: a catalog key, a model id, or an ARN ending in
     * either; of several keys for one model id, the one whose backend is {@code preferred}.
     */
    SimulatedModel resolve(Backend.Endpoint endpoint, Backend preferred, String modelIdentifier) {
        String name = modelIdentifier.contains("/") && !byName.containsKey(modelIdentifier)
                ? modelIdentifier.substring(modelIdentifier.lastIndexOf('/') + 1) : modelIdentifier;
        SimulatedModel found = null;
        for (SimulatedModel model : models) {
            ModelConfig config = model.config();
            boolean named = config.key().equals(name) || config.modelId().equals(name);
            if (named && config.backend().endpoint() == endpoint) {
                if (config.backend() == preferred) {
                    return model;
                }
                if (found == null) {
                    found = model;
                }
            }
        }
        if (found == null) {
            throw new BedrockFailure(BedrockError.RESOURCE_NOT_FOUND, endpoint == Backend.Endpoint.MANTLE
                    ? "The model '" + modelIdentifier + "' does not exist or you do not have access to it."
                    : "Could not resolve the foundation model from the provided model identifier.");
        }
        return found;
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

    long countTokens(SimulatedModel model, PromptContent prompt, SimulationHooks hooks) {
        model.countedTokens();
        failIfAsked(hooks);
        return hooks.inputTokensOr(prompt.tokens(model.config().backendSettings().media()));
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
        MediaRule media = config.backendSettings().media();
        long prompt = hooks.inputTokensOr(inference.prompt().tokens(media));
        if (prompt > config.maxInputTokens()) {
            throw BedrockFailure.validation("Input is too long for requested model.");
        }
        failIfAsked(hooks);
        long cachedPrefix = cachedPrefix(model, inference, media, prompt);
        boolean hit = cachedPrefix > 0 && model.cache().lookUpAndStore(
                inference.prompt().cacheablePrefixKey().orElseThrow(), clock.millis());
        long cacheRead = hooks.cacheReadTokens() + (hit ? cachedPrefix : 0);
        // the OpenAI APIs report no cache writes: a first request pays its prefix as plain input
        long cacheWrite = hooks.cacheWriteTokens() + (!hit && !inference.automaticCache() ? cachedPrefix : 0);
        long input = prompt - (hit || !inference.automaticCache() ? cachedPrefix : 0);
        Optional<ToolCall> toolCall = ToolUseHook.call(inference.prompt());

        ProviderQuota quota = model.quota();
        Charge reservation = Charge.reservation(quota.quota(), new TokenUsage(input, allowance, cacheRead, cacheWrite));
        long arrived = clock.millis();
        ProviderQuota.Reservation held = quota.tryReserve(reservation, arrived);
        if (held == null) {
            throw new BedrockFailure(BedrockError.THROTTLING, "Too many tokens, please wait before trying again.");
        }

        long wanted = toolCall.isPresent()
                ? TokenRule.text(toolCall.get().name() + toolCall.get().inputJson())
                : hooks.outputTokens() >= 0 ? hooks.outputTokens() : defaultOutputTokens;
        long output = Math.min(wanted, allowance);
        TokenUsage actual = new TokenUsage(input, 0, cacheRead, cacheWrite);
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
            pause(latency.sample(output, random));
            long worked = clock.millis() - arrived; // on the simulator's clock, however fast it runs
            actual = new TokenUsage(input, output, cacheRead, cacheWrite);
            String stop = wanted > allowance ? Completion.MAX_TOKENS
                    : toolCall.isPresent() ? Completion.TOOL_USE : Completion.END_TURN;
            return new Completion(input, output, cacheRead, cacheWrite,
                    toolCall.isPresent() ? "" : FillerText.ofTokens(output), stop, Math.max(0, worked),
                    wanted > allowance ? null : toolCall.orElse(null));
        } finally {
            quota.settle(held, Charge.settlement(quota.quota(), actual), clock.millis());
        }
    }

    /**
     * Tokens of the prompt's cacheable prefix: up to its last cache point, or for the OpenAI APIs
     * every message but the last once that prefix reaches 1,024 tokens. Zero when the input size
     * was declared by a hook (the declared size stands for the prompt as a whole).
     */
    private static long cachedPrefix(SimulatedModel model, Inference inference, MediaRule media, long prompt) {
        PromptContent content = inference.prompt();
        if (!content.hasCachePoint() || prompt != content.tokens(media)) {
            return 0;
        }
        long prefix = content.cacheablePrefixTokens(media);
        return inference.automaticCache() && prefix < AUTOMATIC_CACHE_MINIMUM ? 0 : prefix;
    }

    static final long AUTOMATIC_CACHE_MINIMUM = 1_024;

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
