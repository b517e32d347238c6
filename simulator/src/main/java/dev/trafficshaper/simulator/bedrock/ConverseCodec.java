package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/** The Converse API's JSON: request messages, system prompt and inference config; the response. */
final class ConverseCodec {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private ConverseCodec() {
    }

    static Inference readRequest(JsonNode body) {
        Prompt prompt = readPrompt(body);
        JsonNode config = body.path("inferenceConfig");
        return new Inference(prompt, Json.optionalPositive(config, "maxTokens", "inferenceConfig.maxTokens"));
    }

    /** Also the shape of CountTokens' {@code input.converse}. */
    static Prompt readPrompt(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw BedrockFailure.validation("messages: at least one message is required");
        }
        List<String> blocks = new ArrayList<>();
        for (JsonNode message : messages) {
            String role = message.path("role").asText("");
            if (!role.equals("user") && !role.equals("assistant")) {
                throw BedrockFailure.validation("messages.role: must be 'user' or 'assistant', was '" + role + "'");
            }
            JsonNode content = message.get("content");
            if (content == null || !content.isArray() || content.isEmpty()) {
                throw BedrockFailure.validation("messages.content: at least one content block is required");
            }
            content.forEach(block -> addBlock(block, blocks));
        }
        JsonNode system = body.get("system");
        if (system != null && system.isArray()) {
            system.forEach(block -> addBlock(block, blocks));
        }
        JsonNode tools = body.get("toolConfig");
        if (tools != null && !tools.isNull()) {
            blocks.add(tools.toString());
        }
        return new Prompt(blocks, messages.size());
    }

    static ObjectNode writeResponse(Completion completion) {
        ObjectNode response = JSON.objectNode();
        ObjectNode message = response.putObject("output").putObject("message");
        message.put("role", "assistant");
        message.putArray("content").addObject().put("text", completion.text());
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

    private static void addBlock(JsonNode block, List<String> blocks) {
        JsonNode text = block.get("text");
        if (text != null && text.isTextual()) {
            blocks.add(text.asText());
        } else if (!block.has("cachePoint")) {
            // Images, documents and tool blocks: their serialized size is a fair stand-in.
            blocks.add(block.toString());
        }
    }
}
