package dev.trafficshaper.simulator.bedrock;

import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.model.ModelConfig;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One model the simulator serves: its configuration, its quota as Bedrock meters it (one quota per
 * model and endpoint, however many catalog keys name it, as Bedrock shares it across APIs), its
 * prompt cache and its counters.
 */
final class SimulatedModel {

    private final ModelConfig config;
    private final ProviderQuota quota;
    private final PromptCache cache;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong successes = new AtomicLong();
    private final AtomicLong throttles = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong inputTokens = new AtomicLong();
    private final AtomicLong outputTokens = new AtomicLong();
    private final AtomicLong countTokensCalls = new AtomicLong();

    /** {@code quota} and {@code cache} are shared by every key that names the same model on the same endpoint. */
    SimulatedModel(ModelConfig config, ProviderQuota quota, PromptCache cache) {
        this.config = config;
        this.quota = quota;
        this.cache = cache;
    }

    PromptCache cache() {
        return cache;
    }

    ModelConfig config() {
        return config;
    }

    ProviderQuota quota() {
        return quota;
    }

    void called() {
        calls.incrementAndGet();
    }

    void countedTokens() {
        countTokensCalls.incrementAndGet();
    }

    void succeeded(Completion completion) {
        successes.incrementAndGet();
        inputTokens.addAndGet(completion.inputTokens());
        outputTokens.addAndGet(completion.outputTokens());
    }

    void failed(BedrockError error) {
        (error == BedrockError.THROTTLING ? throttles : errors).incrementAndGet();
    }

    ModelStats stats() {
        return new ModelStats(config.key(), config.modelId(), calls.get(), successes.get(), throttles.get(),
                errors.get(), inputTokens.get(), outputTokens.get(), countTokensCalls.get());
    }
}
