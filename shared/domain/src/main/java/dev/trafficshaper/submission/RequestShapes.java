package dev.trafficshaper.submission;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.model.NativeBody;
import dev.trafficshaper.model.ServiceTier;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The request shapes of the five backends, and of InvokeModel's native families. Each lists the
 * top-level fields its API documents: an unknown one is refused at submission (a typo would
 * otherwise wait in the queue, then fail at Bedrock). Extend a list here when an API gains a field.
 */
public final class RequestShapes {

    private static final Set<String> CONVERSE = Set.of("messages", "system", "inferenceConfig", "toolConfig",
            "guardrailConfig", "additionalModelRequestFields", "additionalModelResponseFieldPaths", "promptVariables",
            "requestMetadata", "performanceConfig", "serviceTier");
    private static final Set<String> ANTHROPIC_NATIVE = Set.of("anthropic_version", "anthropic_beta", "max_tokens",
            "messages", "system", "stop_sequences", "temperature", "top_p", "top_k", "tools", "tool_choice",
            "thinking");
    private static final Set<String> ANTHROPIC_MANTLE = Set.of("model", "anthropic_version", "max_tokens",
            "messages", "system", "stop_sequences", "temperature", "top_p", "top_k", "tools", "tool_choice",
            "thinking", "metadata", "service_tier", "stream");
    private static final Set<String> NOVA = Set.of("schemaVersion", "system", "messages", "inferenceConfig",
            "toolConfig");
    private static final Set<String> LLAMA = Set.of("prompt", "max_gen_len", "temperature", "top_p", "images");
    private static final Set<String> TITAN = Set.of("inputText", "textGenerationConfig");
    private static final Set<String> MISTRAL = Set.of("prompt", "messages", "max_tokens", "temperature", "top_p",
            "top_k", "stop", "tools", "tool_choice", "response_format");
    private static final Set<String> CHAT_COMPLETIONS = Set.of("model", "messages", "max_completion_tokens",
            "max_tokens", "temperature", "top_p", "n", "stop", "presence_penalty", "frequency_penalty", "logit_bias",
            "logprobs", "top_logprobs", "user", "tools", "tool_choice", "parallel_tool_calls", "response_format",
            "seed", "service_tier", "stream", "stream_options", "reasoning_effort", "metadata", "store",
            "prompt_cache_key", "safety_identifier", "verbosity");
    private static final Set<String> RESPONSES = Set.of("model", "input", "instructions", "max_output_tokens",
            "temperature", "top_p", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning", "metadata",
            "store", "include", "truncation", "user", "service_tier", "stream", "background", "prompt_cache_key",
            "safety_identifier", "max_tool_calls", "top_logprobs", "previous_response_id", "conversation", "prompt");
    /** Known Responses fields that make the input unknowable at submission: the server adds stored content. */
    private static final Map<String, String> RESPONSES_STORED_INPUT = Map.of(
            "previous_response_id", "a previous response's stored conversation",
            "conversation", "a stored conversation",
            "prompt", "a stored prompt template");
    private static final Map<String, ServiceTier> OPENAI_TIERS = Map.of("auto", ServiceTier.DEFAULT,
            "default", ServiceTier.DEFAULT, "flex", ServiceTier.FLEX, "priority", ServiceTier.PRIORITY);
    private static final Map<String, ServiceTier> ANTHROPIC_TIERS = Map.of("auto", ServiceTier.DEFAULT,
            "standard_only", ServiceTier.DEFAULT);

    private RequestShapes() {
    }

    public static RequestShape of(ModelConfig model) {
        return of(model.backend(), model.nativeBody().orElse(null));
    }

    public static RequestShape of(Backend backend, NativeBody nativeBody) {
        return switch (backend) {
            case CONVERSE -> RequestShapes::converse;
            case MANTLE_MESSAGES -> (body, key, model) -> anthropic(body, key, model, true);
            case MANTLE_CHAT_COMPLETIONS -> RequestShapes::chatCompletions;
            case MANTLE_RESPONSES -> RequestShapes::responses;
            case INVOKE_MODEL -> switch (nativeBody) {
                case ANTHROPIC -> (body, key, model) -> anthropic(body, key, model, false);
                case NOVA -> RequestShapes::nova;
                case LLAMA -> RequestShapes::llama;
                case TITAN -> RequestShapes::titan;
                case MISTRAL -> RequestShapes::mistral;
            };
        };
    }

    private static ShapedBody converse(JsonNode body, String key, ModelConfig model) {
        Fields f = new Fields(body, key, "a Converse request");
        f.only(CONVERSE);
        f.nonEmptyArray("messages");
        f.optionalArray("system");
        ServiceTier tier = null;
        JsonNode serviceTier = body.get("serviceTier");
        if (serviceTier != null && !serviceTier.isNull()) {
            tier = tier(serviceTier.path("type"), key + ".serviceTier.type");
        }
        long limit = f.outputLimit(body.path("inferenceConfig").get("maxTokens"), "inferenceConfig.maxTokens", model);
        return new ShapedBody(limit, key + ".inferenceConfig.maxTokens", tier,
                tier == null ? null : key + ".serviceTier.type", null);
    }

    private static ShapedBody anthropic(JsonNode body, String key, ModelConfig model, boolean mantle) {
        Fields f = new Fields(body, key, mantle ? "an Anthropic Messages request" : "an InvokeModel Anthropic body");
        f.only(mantle ? ANTHROPIC_MANTLE : ANTHROPIC_NATIVE);
        if (!mantle) {
            f.requiredText("anthropic_version");
        }
        f.nonEmptyArray("messages");
        f.notTrue("stream");
        ServiceTier tier = null;
        if (mantle && body.hasNonNull("service_tier")) {
            tier = named(body.get("service_tier"), ANTHROPIC_TIERS, key + ".service_tier");
        }
        long limit = f.outputLimit(body.get("max_tokens"), "max_tokens", model);
        return new ShapedBody(limit, key + ".max_tokens", tier, tier == null ? null : key + ".service_tier",
                mantle ? f.optionalText("model") : null);
    }

    private static ShapedBody nova(JsonNode body, String key, ModelConfig model) {
        Fields f = new Fields(body, key, "an InvokeModel Nova body");
        f.only(NOVA);
        f.nonEmptyArray("messages");
        long limit = f.outputLimit(body.path("inferenceConfig").get("max_new_tokens"),
                "inferenceConfig.max_new_tokens", model);
        return new ShapedBody(limit, key + ".inferenceConfig.max_new_tokens", null, null, null);
    }

    private static ShapedBody llama(JsonNode body, String key, ModelConfig model) {
        Fields f = new Fields(body, key, "an InvokeModel Llama body");
        f.only(LLAMA);
        f.requiredText("prompt");
        long limit = f.outputLimit(body.get("max_gen_len"), "max_gen_len", model);
        return new ShapedBody(limit, key + ".max_gen_len", null, null, null);
    }

    private static ShapedBody titan(JsonNode body, String key, ModelConfig model) {
        Fields f = new Fields(body, key, "an InvokeModel Titan Text body");
        f.only(TITAN);
        f.requiredText("inputText");
        long limit = f.outputLimit(body.path("textGenerationConfig").get("maxTokenCount"),
                "textGenerationConfig.maxTokenCount", model);
        return new ShapedBody(limit, key + ".textGenerationConfig.maxTokenCount", null, null, null);
    }

    private static ShapedBody mistral(JsonNode body, String key, ModelConfig model) {
        Fields f = new Fields(body, key, "an InvokeModel Mistral body");
        f.only(MISTRAL);
        if (body.has("messages")) {
            f.nonEmptyArray("messages");
        } else {
            f.requiredText("prompt");
        }
        long limit = f.outputLimit(body.get("max_tokens"), "max_tokens", model);
        return new ShapedBody(limit, key + ".max_tokens", null, null, null);
    }

    private static ShapedBody chatCompletions(JsonNode body, String key, ModelConfig model) {
        Fields f = new Fields(body, key, "a Chat Completions request");
        f.only(CHAT_COMPLETIONS);
        f.nonEmptyArray("messages");
        f.notTrue("stream");
        JsonNode n = body.get("n");
        if (n != null && !n.isNull() && !(n.isIntegralNumber() && n.asLong() == 1)) {
            throw new InvalidSubmissionException(key + ".n", key + ".n must be 1: the reservation covers one choice");
        }
        JsonNode completion = body.get("max_completion_tokens");
        JsonNode legacy = body.get("max_tokens");
        String limitField;
        long limit;
        if (completion != null && !completion.isNull()) {
            limit = f.outputLimit(completion, "max_completion_tokens", model);
            limitField = key + ".max_completion_tokens";
            if (legacy != null && !legacy.isNull()) {
                limit = Math.max(limit, f.outputLimit(legacy, "max_tokens", model));
            }
        } else {
            limit = f.outputLimit(legacy, "max_completion_tokens", model);
            limitField = key + (legacy == null || legacy.isNull() ? ".max_completion_tokens" : ".max_tokens");
        }
        ServiceTier tier = body.hasNonNull("service_tier")
                ? named(body.get("service_tier"), OPENAI_TIERS, key + ".service_tier") : null;
        return new ShapedBody(limit, limitField, tier, tier == null ? null : key + ".service_tier",
                f.optionalText("model"));
    }

    private static ShapedBody responses(JsonNode body, String key, ModelConfig model) {
        Fields f = new Fields(body, key, "a Responses request");
        f.only(RESPONSES);
        RESPONSES_STORED_INPUT.forEach((field, what) -> {
            if (body.hasNonNull(field)) {
                throw new InvalidSubmissionException(key + "." + field, key + "." + field + ": the input would include "
                        + what + " the shaper cannot see, so it cannot reserve what Bedrock will charge; send the"
                        + " whole input instead");
            }
        });
        JsonNode input = body.get("input");
        if (input == null || !(input.isTextual() || (input.isArray() && !input.isEmpty()))) {
            throw new InvalidSubmissionException(key + ".input", key + ".input must be a string or a non-empty list");
        }
        f.notTrue("stream");
        f.notTrue("background");
        long limit = f.outputLimit(body.get("max_output_tokens"), "max_output_tokens", model);
        ServiceTier tier = body.hasNonNull("service_tier")
                ? named(body.get("service_tier"), OPENAI_TIERS, key + ".service_tier") : null;
        return new ShapedBody(limit, key + ".max_output_tokens", tier, tier == null ? null : key + ".service_tier",
                f.optionalText("model"));
    }

    /** A Bedrock tier name, as Converse's {@code serviceTier.type} and InvokeModel's header carry it. */
    static ServiceTier tier(JsonNode node, String field) {
        if (node == null || !node.isTextual()) {
            throw new InvalidSubmissionException(field, field + " must be one of default, priority, flex, reserved");
        }
        try {
            return ServiceTier.fromWireName(node.asText());
        } catch (IllegalArgumentException e) {
            throw new InvalidSubmissionException(field, field + ": " + e.getMessage());
        }
    }

    private static ServiceTier named(JsonNode node, Map<String, ServiceTier> names, String field) {
        ServiceTier tier = node.isTextual() ? names.get(node.asText()) : null;
        if (tier == null) {
            throw new InvalidSubmissionException(field, field + " must be one of " + new TreeSet<>(names.keySet())
                    + ", was " + node);
        }
        return tier;
    }

    /** Checks on the fields of one body, with error paths under its submission key. */
    private record Fields(JsonNode body, String key, String what) {

        void only(Set<String> known) {
            for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!known.contains(name)) {
                    throw new InvalidSubmissionException(key + "." + name, "unknown field '" + name + "' in " + what
                            + " (" + key + "); known fields: " + String.join(", ", new TreeSet<>(known)));
                }
            }
        }

        void nonEmptyArray(String name) {
            JsonNode value = body.get(name);
            if (value == null || !value.isArray() || value.isEmpty()) {
                throw new InvalidSubmissionException(key + "." + name, key + "." + name + " must be a non-empty list");
            }
        }

        void optionalArray(String name) {
            JsonNode value = body.get(name);
            if (value != null && !value.isNull() && !value.isArray()) {
                throw new InvalidSubmissionException(key + "." + name, key + "." + name + " must be a list");
            }
        }

        void requiredText(String name) {
            JsonNode value = body.get(name);
            if (value == null || !value.isTextual()) {
                throw new InvalidSubmissionException(key + "." + name, key + "." + name + ": required string in "
                        + what);
            }
        }

        String optionalText(String name) {
            JsonNode value = body.get(name);
            if (value == null || value.isNull()) {
                return null;
            }
            if (!value.isTextual()) {
                throw new InvalidSubmissionException(key + "." + name, key + "." + name + " must be a string");
            }
            return value.asText();
        }

        void notTrue(String name) {
            JsonNode value = body.get(name);
            if (value != null && value.isBoolean() && value.asBoolean()) {
                throw new InvalidSubmissionException(key + "." + name, key + "." + name + ": the shaper delivers"
                        + " results whole, so it must be false or absent");
            }
        }

        long outputLimit(JsonNode node, String name, ModelConfig model) {
            String field = key + "." + name;
            if (node == null || node.isNull()) {
                throw new InvalidSubmissionException(field, field + ": required, so the shaper knows what Bedrock"
                        + " will reserve (at most " + model.maxTokensLimit() + " for model " + model.key() + ")");
            }
            if (!node.isIntegralNumber() || !node.canConvertToLong()) {
                throw new InvalidSubmissionException(field, field + " must be a whole number");
            }
            long value = node.asLong();
            if (value < 1 || value > model.maxTokensLimit()) {
                throw new InvalidSubmissionException(field, field + " must be between 1 and "
                        + model.maxTokensLimit() + " for model " + model.key() + ", was " + value);
            }
            return value;
        }
    }
}
