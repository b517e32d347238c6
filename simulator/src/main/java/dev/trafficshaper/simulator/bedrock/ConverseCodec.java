package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.submission.PromptContent;
import dev.trafficshaper.submission.PromptReaders;

/**
 * The Converse API's JSON: the request as the shaper reads it (messages, system, tools, images,
 * documents, cache points) and the response, a text or a {@code toolUse} block.
 */
final class ConverseCodec {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private ConverseCodec() {
    }

    static Inference readRequest(JsonNode body) {
        PromptContent prompt = readPrompt(body);
        JsonNode config = body.path("inferenceConfig");
        return new Inference(prompt, Json.optionalPositive(config, "maxTokens", "inferenceConfig.maxTokens"));
    }

    /** Also the shape of CountTokens' {@code input.converse}. */
    static PromptContent readPrompt(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw BedrockFailure.validation("messages: at least one message is required");
        }
        for (JsonNode message : messages) {
            String role = message.path("role").asText("");
            if (!role.equals("user") && !role.equals("assistant")) {
                throw BedrockFailure.validation("messages.role: must be 'user' or 'assistant', was '" + role + "'");
            }
            JsonNode content = message.get("content");
            if (content == null || !content.isArray() || content.isEmpty()) {
                throw BedrockFailure.validation("messages.content: at least one content block is required");
            }
        }
        return PromptReaders.converse(body);
    }

    static ObjectNode writeResponse(Completion completion) {
        ObjectNode response = JSON.objectNode();
        ObjectNode message = response.putObject("output").putObject("message");
        message.put("role", "assistant");
        contentInto(message, completion);
        response.put("stopReason", completion.stopReason());
        ObjectNode usage = response.putObject("usage");
        usage.put("inputTokens", completion.inputTokens());
        usage.put("outputTokens", completion.outputTokens());
        usage.put("totalTokens", completion.totalTokens());
        if (completion.cacheReadTokens() > 0 || completion.cacheWriteTokens() > 0) {
            usage.put("cacheReadInputTokens", completion.cacheReadTokens());
            usage.put("cacheWriteInputTokens", completion.cacheWriteTokens());
        }
        response.putObject("metrics").put("latencyMs", completion.latencyMillis());
        return response;
    }

    /** {@code content}: one text block, or one {@code toolUse} block (Converse and Nova share it). */
    static void contentInto(ObjectNode message, Completion completion) {
        if (completion.callsTool()) {
            ToolCall call = completion.toolCall();
            ObjectNode use = message.putArray("content").addObject().putObject("toolUse");
            use.put("toolUseId", call.id());
            use.put("name", call.name());
            use.set("input", Json.readObject(call.inputJson().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } else {
            message.putArray("content").addObject().put("text", completion.text());
        }
    }
}
