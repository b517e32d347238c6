package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The model families' native InvokeModel bodies the simulator understands. InvokeModel passes the
 * body to the model untouched, so the simulator recognises the family from the body's fields and
 * answers in the same family's response shape.
 */
enum NativeFormat {
    /** Anthropic Messages: {@code anthropic_version}, {@code max_tokens}, {@code messages}. */
    ANTHROPIC {
        @Override
        Inference read(JsonNode body) {
            List<String> blocks = new ArrayList<>();
            JsonNode messages = requireMessages(body);
            messages.forEach(message -> addContent(message.get("content"), blocks));
            addContent(body.get("system"), blocks);
            return new Inference(new Prompt(blocks, messages.size()),
                    Json.optionalPositive(body, "max_tokens", "max_tokens"));
        }

        @Override
        ObjectNode write(Completion completion, String modelId) {
            ObjectNode response = JSON.objectNode();
            response.put("id", "msg_sim_" + Long.toHexString(completion.text().hashCode() & 0xffffffffL));
            response.put("type", "message");
            response.put("role", "assistant");
            response.put("model", modelId);
            ObjectNode text = response.putArray("content").addObject();
            text.put("type", "text");
            text.put("text", completion.text());
            response.put("stop_reason", completion.stopReason());
            response.putNull("stop_sequence");
            ObjectNode usage = response.putObject("usage");
            usage.put("input_tokens", completion.inputTokens());
            usage.put("output_tokens", completion.outputTokens());
            if (completion.cacheReadTokens() > 0 || completion.cacheWriteTokens() > 0) {
                usage.put("cache_read_input_tokens", completion.cacheReadTokens());
                usage.put("cache_creation_input_tokens", completion.cacheWriteTokens());
            }
            return response;
        }
    },
    /** Amazon Nova {@code messages-v1}: Converse-like messages, {@code inferenceConfig.max_new_tokens}. */
    NOVA {
        @Override
        Inference read(JsonNode body) {
            List<String> blocks = new ArrayList<>();
            JsonNode messages = requireMessages(body);
            messages.forEach(message -> addContent(message.get("content"), blocks));
            addContent(body.get("system"), blocks);
            JsonNode config = body.path("inferenceConfig");
            long maxTokens = Json.optionalPositive(config, "max_new_tokens", "inferenceConfig.max_new_tokens");
            if (maxTokens == 0) {
                maxTokens = Json.optionalPositive(config, "maxTokens", "inferenceConfig.maxTokens");
            }
            return new Inference(new Prompt(blocks, messages.size()), maxTokens);
        }

        @Override
        ObjectNode write(Completion completion, String modelId) {
            ObjectNode response = JSON.objectNode();
            ObjectNode message = response.putObject("output").putObject("message");
            message.putArray("content").addObject().put("text", completion.text());
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
            return new Inference(new Prompt(List.of(body.get("inputText").asText()), 1), maxTokens);
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
            return new Inference(promptOf(body), Json.optionalPositive(body, "max_gen_len", "max_gen_len"));
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
            return new Inference(promptOf(body), Json.optionalPositive(body, "max_tokens", "max_tokens"));
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

    private static JsonNode requireMessages(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw BedrockFailure.validation("messages: at least one message is required");
        }
        return messages;
    }

    private static Prompt promptOf(JsonNode body) {
        return new Prompt(List.of(body.get("prompt").asText()), 1);
    }

    /** Content as a plain string, or as blocks carrying {@code text}; other blocks count by size. */
    private static void addContent(JsonNode content, List<String> blocks) {
        if (content == null || content.isNull()) {
            return;
        }
        if (content.isTextual()) {
            blocks.add(content.asText());
            return;
        }
        for (JsonNode block : content) {
            JsonNode text = block.get("text");
            blocks.add(text != null && text.isTextual() ? text.asText() : block.toString());
        }
    }
}
