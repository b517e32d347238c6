package dev.trafficshaper.simulator.bedrock;

import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.model.ModelConfig;
import java.util.concurrent.atomic.AtomicLong;

/** One model the simulator serves: its configuration, its quota as Bedrock meters it, its counters. */
final class SimulatedModel {

    private final ModelConfig config;
    private final ProviderQuota quota;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong successes = new AtomicLong();
    private final AtomicLong throttles = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong inputTokens = new AtomicLong();
    private final AtomicLong outputTokens = new AtomicLong();
    private final AtomicLong countTokensCalls = new AtomicLong();

    SimulatedModel(ModelConfig config, ProviderQuota quota) {
        this.config = config;
        this.quota = quota;
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
