package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/** The Anthropic Messages response, natively through InvokeModel and on bedrock-mantle alike. */
final class AnthropicCodec {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private AnthropicCodec() {
    }

    static ObjectNode writeResponse(Completion completion, String modelId) {
        ObjectNode response = JSON.objectNode();
        response.put("id", "msg_sim_" + Long.toHexString(System.nanoTime()));
        response.put("type", "message");
        response.put("role", "assistant");
        response.put("model", modelId);
        ObjectNode block = response.putArray("content").addObject();
        if (completion.callsTool()) {
            ToolCall call = completion.toolCall();
            block.put("type", "tool_use");
            block.put("id", call.id());
            block.put("name", call.name());
            block.set("input", Json.readObject(call.inputJson().getBytes(StandardCharsets.UTF_8)));
        } else {
            block.put("type", "text");
            block.put("text", completion.text());
        }
        response.put("stop_reason", completion.stopReason());
        response.putNull("stop_sequence");
        ObjectNode usage = response.putObject("usage");
        usage.put("input_tokens", completion.inputTokens());
        usage.put("output_tokens", completion.outputTokens());
        usage.put("cache_creation_input_tokens", completion.cacheWriteTokens());
        usage.put("cache_read_input_tokens", completion.cacheReadTokens());
        return response;
    }
}
