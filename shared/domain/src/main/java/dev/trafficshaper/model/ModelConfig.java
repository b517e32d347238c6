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
 * @param fallbackKey            model to route to when this one cannot meet a deadline, or null; it
 *                               must use the same backend, since the body is sent to it unchanged
 * @param backendSettings        tiers, native body family, mantle auth, token counting, media rule
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
        String fallbackKey,
        BackendSettings backendSettings) {

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
        if (backendSettings == null) {
            throw new IllegalArgumentException("model " + key + ": backendSettings are required");
        }
        if (backend == Backend.INVOKE_MODEL && backendSettings.bodyFormat() == null) {
            backendSettings = backendSettings.withBodyFormat(NativeBody.detect(modelId).orElseThrow(() ->
                    new IllegalArgumentException("model " + key + ": bodyFormat is required for invoke-model when the"
                            + " model id names no known family (anthropic, nova, llama, titan, mistral)")));
        }
    }

    /** A model with the default backend settings (standard tier only, character estimates). */
    public ModelConfig(String key, String modelId, Backend backend, Quota quota, long maxTokensLimit,
                       long maxInputTokens, PacerSettings pacer, int shards, long defaultDeadlineSeconds,
                       long maxDeadlineSeconds, String fallbackKey) {
        this(key, modelId, backend, quota, maxTokensLimit, maxInputTokens, pacer, shards, defaultDeadlineSeconds,
                maxDeadlineSeconds, fallbackKey, BackendSettings.defaults());
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
                defaultDeadlineSeconds, maxDeadlineSeconds, fallbackKey, backendSettings);
    }

    public ModelConfig withQuota(Quota newQuota) {
        return new ModelConfig(key, modelId, backend, newQuota, maxTokensLimit, maxInputTokens, pacer, shards,
                defaultDeadlineSeconds, maxDeadlineSeconds, fallbackKey, backendSettings);
    }

    /** The same model served through another backend, with the given settings. */
    public ModelConfig withBackend(Backend newBackend, BackendSettings settings) {
        return new ModelConfig(key, modelId, newBackend, quota, maxTokensLimit, maxInputTokens, pacer, shards,
                defaultDeadlineSeconds, maxDeadlineSeconds, fallbackKey, settings);
    }

    /** The native body family of an InvokeModel model; empty for other backends. */
    public Optional<NativeBody> nativeBody() {
        return backend == Backend.INVOKE_MODEL ? Optional.of(backendSettings.bodyFormat()) : Optional.empty();
    }

    private static void requireText(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
    }
}
