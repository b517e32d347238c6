package dev.trafficshaper.model;

import java.util.Locale;
import java.util.Optional;

/**
 * The native InvokeModel body families the shaper reads. InvokeModel forwards the body to the
 * model untouched, so the family fixes which fields are valid and where the output limit sits.
 */
public enum NativeBody {
    /** Anthropic Messages with {@code anthropic_version}; limit {@code max_tokens}. */
    ANTHROPIC("anthropic"),
    /** Amazon Nova {@code messages-v1}; limit {@code inferenceConfig.max_new_tokens}. */
    NOVA("nova"),
    /** Meta Llama; limit {@code max_gen_len}. */
    LLAMA("llama"),
    /** Amazon Titan Text; limit {@code textGenerationConfig.maxTokenCount}. */
    TITAN("titan"),
    /** Mistral (text completion or chat); limit {@code max_tokens}. */
    MISTRAL("mistral");

    private final String wireName;

    NativeBody(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static NativeBody fromWireName(String name) {
        for (NativeBody body : values()) {
            if (body.wireName.equals(name)) {
                return body;
            }
        }
        throw new IllegalArgumentException("unknown bodyFormat '" + name
                + "': expected anthropic, nova, llama, titan or mistral");
    }

    /**
     * The family a model id names: {@code anthropic.*}, {@code amazon.nova-*}, {@code meta.llama*},
     * {@code amazon.titan-text*}, {@code mistral.*}, with or without a geography prefix
     * ({@code us.}, {@code eu.}, {@code global.}...). Empty for an ARN or another provider.
     */
    public static Optional<NativeBody> detect(String modelId) {
        String id = modelId.toLowerCase(Locale.ROOT);
        if (id.startsWith("arn:")) {
            return Optional.empty();
        }
        int dot = id.indexOf('.');
        if (dot > 0 && GEOGRAPHIES.contains(id.substring(0, dot))) {
            id = id.substring(dot + 1);
        }
        if (id.startsWith("anthropic.")) {
            return Optional.of(ANTHROPIC);
        }
        if (id.startsWith("amazon.nova")) {
            return Optional.of(NOVA);
        }
        if (id.startsWith("amazon.titan-text")) {
            return Optional.of(TITAN);
        }
        if (id.startsWith("meta.llama")) {
            return Optional.of(LLAMA);
        }
        if (id.startsWith("mistral.")) {
            return Optional.of(MISTRAL);
        }
        return Optional.empty();
    }

    private static final java.util.Set<String> GEOGRAPHIES = java.util.Set.of("us", "eu", "apac", "jp", "au", "ca",
            "us-gov", "global");
}
