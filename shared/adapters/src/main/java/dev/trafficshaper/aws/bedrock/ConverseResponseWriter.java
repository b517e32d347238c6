package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.quota.TokenUsage;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.Message;

/**
 * Renders the SDK's Converse response as the JSON body Bedrock sent, so callers of the shaper read
 * the same shape they would get from Bedrock directly. Only text output is carried, matching the
 * requests the shaper accepts.
 */
final class ConverseResponseWriter {

    private final ObjectMapper json;

    ConverseResponseWriter(ObjectMapper json) {
        this.json = json;
    }

    String write(ConverseResponse response) {
        ObjectNode body = json.createObjectNode();
        ObjectNode message = body.putObject("output").putObject("message");
        Message output = response.output() == null ? null : response.output().message();
        message.put("role", output == null || output.role() == null ? "assistant" : output.roleAsString());
        ArrayNode content = message.putArray("content");
        if (output != null) {
            for (ContentBlock block : output.content()) {
                if (block.text() != null) {
                    content.addObject().put("text", block.text());
                }
            }
        }
        body.put("stopReason", response.stopReasonAsString());
        ObjectNode usage = body.putObject("usage");
        TokenUsage tokens = usage(response);
        usage.put("inputTokens", tokens.inputTokens());
        usage.put("outputTokens", tokens.outputTokens());
        usage.put("totalTokens", response.usage() == null || response.usage().totalTokens() == null
                ? tokens.inputTokens() + tokens.outputTokens() : response.usage().totalTokens());
        usage.put("cacheReadInputTokens", tokens.cacheReadTokens());
        usage.put("cacheWriteInputTokens", tokens.cacheWriteTokens());
        if (response.metrics() != null && response.metrics().latencyMs() != null) {
            body.putObject("metrics").put("latencyMs", response.metrics().latencyMs());
        }
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render a Converse response", e);
        }
    }

    /** Usage as Bedrock reported it; absent counts are zero, never guessed. */
    static TokenUsage usage(ConverseResponse response) {
        if (response.usage() == null) {
            return TokenUsage.of(0, 0);
        }
        var usage = response.usage();
        return new TokenUsage(orZero(usage.inputTokens()), orZero(usage.outputTokens()),
                orZero(usage.cacheReadInputTokens()), orZero(usage.cacheWriteInputTokens()));
    }

    private static long orZero(Integer value) {
        return value == null ? 0 : value;
    }
}
