package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.NativeBody;
import dev.trafficshaper.submission.PromptReaders;

/**
 * The model families' native InvokeModel bodies the simulator understands. InvokeModel passes the
 * body to the model untouched, so the family is the model's (from the models file or its id) or,
 * failing that, recognised from the body's fields; the answer has the same family's shape.
 */
enum NativeFormat {
    /** Anthropic Messages: {@code anthropic_version}, {@code max_tokens}, {@code messages}. */
    ANTHROPIC {
        @Override
        Inference read(JsonNode body) {
            requireMessages(body);
            return new Inference(PromptReaders.anthropic(body), Json.optionalPositive(body, "max_tokens", "max_tokens"));
        }

        @Override
        ObjectNode write(Completion completion, String modelId) {
            return AnthropicCodec.writeResponse(completion, modelId);
        }
    },
    /** Amazon Nova {@code messages-v1}: Converse-like messages, {@code inferenceConfig.max_new_tokens}. */
    NOVA {
        @Override
        Inference read(JsonNode body) {
            requireMessages(body);
            JsonNode config = body.path("inferenceConfig");
            long maxTokens = Json.optionalPositive(config, "max_new_tokens", "inferenceConfig.max_new_tokens");
            if (maxTokens == 0) {
                maxTokens = Json.optionalPositive(config, "maxTokens", "inferenceConfig.maxTokens");
            }
            return new Inference(PromptReaders.converse(body), maxTokens);
        }

        @Override
        ObjectNode write(Completion completion, String modelId) {
            ObjectNode response = JSON.objectNode();
            ObjectNode message = response.putObject("output").putObject("message");
            ConverseCodec.contentInto(message, completion);
            message.put("role", "assistant");
            response.put("stopReason", completion.stopReason());
            ObjectNode usage = response.putObject("usage");
            usage.put("inputTokens", completion.inputTokens());
            usage.put("outputTokens", completion.outputTokens());
            usage.put("totalTokens", completion.totalTokens());
            usage.put("cacheReadInputTokenCount", completion.cacheReadTokens());
            usage.put("cacheWriteInputTokenCount", completion.cacheWriteTokens());
            return response;
        }
    },
    /** Amazon Titan Text: {@code inputText}, {@code textGenerationConfig.maxTokenCount}. */
    TITAN {
        @Override
        Inference read(JsonNode body) {
            long maxTokens = Json.optionalPositive(body.path("textGenerationConfig"), "maxTokenCount",
                    "textGenerationConfig.maxTokenCount");
            return new Inference(PromptReaders.titan(body), maxTokens);
        }

        @Override
        ObjectNode write(Completion completion, String modelId) {
            ObjectNode response = JSON.objectNode();
            response.put("inputTextTokenCount", completion.inputTokens());
            ObjectNode result = response.putArray("results").addObject();
            result.put("tokenCount", completion.outputTokens());
            result.put("outputText", completion.text());
            result.put("completionReason", completion.truncated() ? "LENGTH" : "FINISH");
            return response;
        }
    },
    /** Meta Llama: {@code prompt}, {@code max_gen_len}. */
    LLAMA {
        @Override
        Inference read(JsonNode body) {
            return new Inference(PromptReaders.llama(body), Json.optionalPositive(body, "max_gen_len", "max_gen_len"));
        }

        @Override
        ObjectNode write(Completion completion, String modelId) {
            ObjectNode response = JSON.objectNode();
            response.put("generation", completion.text());
            response.put("prompt_token_count", completion.inputTokens());
            response.put("generation_token_count", completion.outputTokens());
            response.put("stop_reason", completion.truncated() ? "length" : "stop");
            return response;
        }
    },
    /** Mistral-style text completion: {@code prompt}, {@code max_tokens}. */
    PROMPT_COMPLETION {
        @Override
        Inference read(JsonNode body) {
            return new Inference(PromptReaders.read(Backend.INVOKE_MODEL, NativeBody.MISTRAL, body),
                    Json.optionalPositive(body, "max_tokens", "max_tokens"));
        }

        @Override
        ObjectNode write(Completion completion, String modelId) {
            ObjectNode response = JSON.objectNode();
            ObjectNode output = response.putArray("outputs").addObject();
            output.put("text", completion.text());
            output.put("stop_reason", completion.truncated() ? "length" : "stop");
            return response;
        }
    };

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    abstract Inference read(JsonNode body);

    abstract ObjectNode write(Completion completion, String modelId);

    /** The model's family when it is configured for InvokeModel, else the one the body shows. */
    static NativeFormat of(NativeBody family, JsonNode body, String modelId) {
        if (family == null) {
            return detect(body, modelId);
        }
        return switch (family) {
            case ANTHROPIC -> ANTHROPIC;
            case NOVA -> NOVA;
            case TITAN -> TITAN;
            case LLAMA -> LLAMA;
            case MISTRAL -> PROMPT_COMPLETION;
        };
    }

    static NativeFormat detect(JsonNode body, String modelId) {
        if (body.has("anthropic_version") || (body.has("messages") && body.has("max_tokens"))) {
            return ANTHROPIC;
        }
        if (body.has("messages")) {
            return modelId.contains("anthropic") ? ANTHROPIC : NOVA;
        }
        if (body.path("inputText").isTextual()) {
            return TITAN;
        }
        if (body.path("prompt").isTextual()) {
            return body.has("max_gen_len") || modelId.contains("llama") ? LLAMA : PROMPT_COMPLETION;
        }
        throw BedrockFailure.validation("Malformed input request: expected 'messages', 'prompt' or 'inputText'");
    }

    private static void requireMessages(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw BedrockFailure.validation("messages: at least one message is required");
        }
    }
}
