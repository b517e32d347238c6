package dev.trafficshaper.model;

import dev.trafficshaper.quota.Quota;

import dev.trafficshaper.pacing.PacerSettings;
import java.util.Optional;

/**
 * Everything the shaper needs to know about one model it fronts: the Bedrock id, its quotas, the
 * limits it enforces on incoming requests, and how its pacer is tuned.
 *
 * @param key                    the name callers use in {@code "model"}, e.g. {@code nova-lite}
 * @param modelId                the Bedrock model or inference-profile id
 * @param maxTokensLimit         largest {@code maxTokens} a request may ask for
 * @param maxInputTokens         largest estimated input a request may carry
 * @param shards                 queue shards for this model (one shard key absorbs a few hundred writes/s)
 * @param defaultDeadlineSeconds deadline given to requests that name none
 * @param maxDeadlineSeconds     longest deadline a request may ask for
 * @param fallbackKey            model to route to when this one cannot meet a deadline, or null
 */
public record ModelConfig(
        String key,
        String modelId,
        Backend backend,
        Quota quota,
        long maxTokensLimit,
        long maxInputTokens,
        PacerSettings pacer,
        int shards,
        long defaultDeadlineSeconds,
        long maxDeadlineSeconds,
        String fallbackKey) {

    public ModelConfig {
        requireText("key", key);
        requireText("modelId", modelId);
        if (backend == null || quota == null || pacer == null) {
            throw new IllegalArgumentException("model " + key + ": backend, quota and pacer are required");
        }
        if (maxTokensLimit < 1 || maxInputTokens < 1) {
            throw new IllegalArgumentException("model " + key + ": maxTokens and maxInputTokens must be positive");
        }
        if (shards < 1 || shards > 64) {
            throw new IllegalArgumentException("model " + key + ": shards must be in [1, 64], was " + shards);
        }
        if (defaultDeadlineSeconds < 1 || maxDeadlineSeconds < defaultDeadlineSeconds) {
            throw new IllegalArgumentException("model " + key
                    + ": need 1 <= defaultDeadlineSeconds <= maxDeadlineSeconds");
        }
        if (key.equals(fallbackKey)) {
            throw new IllegalArgumentException("model " + key + ": a model cannot be its own fallback");
        }
    }

    public Optional<String> fallback() {
        return Optional.ofNullable(fallbackKey);
    }

    /** A model with production defaults, for tests and the simulator. */
    public static ModelConfig of(String key, String modelId, Quota quota) {
        return new ModelConfig(key, modelId, Backend.CONVERSE, quota, 10_000, 300_000,
                PacerSettings.defaults(), 4, 900, 3_600, null);
    }

    public ModelConfig withPacer(PacerSettings settings) {
        return new ModelConfig(key, modelId, backend, quota, maxTokensLimit, maxInputTokens, settings, shards,
                defaultDeadlineSeconds, maxDeadlineSeconds, fallbackKey);
    }

    public ModelConfig withQuota(Quota newQuota) {
        return new ModelConfig(key, modelId, backend, newQuota, maxTokensLimit, maxInputTokens, pacer, shards,
                defaultDeadlineSeconds, maxDeadlineSeconds, fallbackKey);
    }

    private static void requireText(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
    }
}
