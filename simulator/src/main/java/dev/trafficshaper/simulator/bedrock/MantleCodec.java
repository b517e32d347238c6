package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.submission.PromptReaders;
import java.util.concurrent.atomic.AtomicLong;

/**
 * bedrock-mantle's APIs: OpenAI Chat Completions ({@code /v1/chat/completions}), OpenAI Responses
 * ({@code /v1/responses}) and Anthropic Messages ({@code /anthropic/v1/messages}), each read and
 * answered in its own JSON, the model named in the body. The OpenAI APIs report cached reads
 * inside their input count ({@code prompt_tokens_details.cached_tokens},
 * {@code input_tokens_details.cached_tokens}) and no cache writes.
 */
final class MantleCodec {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final AtomicLong IDS = new AtomicLong();

    private MantleCodec() {
    }

    /** The model the body names; every Mantle API requires it. */
    static String model(JsonNode body) {
        JsonNode model = body.get("model");
        if (model == null || !model.isTextual() || model.asText().isBlank()) {
            throw BedrockFailure.validation("model: required");
        }
        return model.asText();
    }

    static void refuseStreaming(JsonNode body) {
        if (body.path("stream").asBoolean(false)) {
            throw BedrockFailure.validation("stream: the Bedrock simulator does not stream");
        }
    }

    static Inference readChatCompletions(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw BedrockFailure.validation("messages: at least one message is required");
        }
        long maxTokens = Json.optionalPositive(body, "max_completion_tokens", "max_completion_tokens");
        if (maxTokens == 0) {
            maxTokens = Json.optionalPositive(body, "max_tokens", "max_tokens");
        }
        return new Inference(PromptReaders.chatCompletions(body), maxTokens, true);
    }

    static Inference readResponses(JsonNode body) {
        JsonNode input = body.get("input");
        if (input == null || !(input.isTextual() || (input.isArray() && !input.isEmpty()))) {
            throw BedrockFailure.validation("input: a string or a non-empty list is required");
        }
        return new Inference(PromptReaders.responses(body),
                Json.optionalPositive(body, "max_output_tokens", "max_output_tokens"), true);
    }

    static Inference readMessages(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw BedrockFailure.validation("messages: at least one message is required");
        }
        long maxTokens = Json.optionalPositive(body, "max_tokens", "max_tokens");
        if (maxTokens == 0) {
            throw BedrockFailure.validation("max_tokens: Field required");
        }
        return new Inference(PromptReaders.anthropic(body), maxTokens);
    }

    static ObjectNode writeChatCompletion(Completion completion, String model, long createdSeconds) {
        ObjectNode response = JSON.objectNode();
        response.put("id", "chatcmpl-sim" + IDS.incrementAndGet());
        response.put("object", "chat.completion");
        response.put("created", createdSeconds);
        response.put("model", model);
        ObjectNode choice = response.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (completion.callsTool()) {
            message.putNull("content");
            ObjectNode call = message.putArray("tool_calls").addObject();
            call.put("id", completion.toolCall().id());
            call.put("type", "function");
            call.putObject("function").put("name", completion.toolCall().name())
                    .put("arguments", completion.toolCall().inputJson());
        } else {
            message.put("content", completion.text());
        }
        choice.put("finish_reason", completion.truncated() ? "length" : completion.callsTool() ? "tool_calls" : "stop");
        ObjectNode usage = response.putObject("usage");
        long prompt = completion.inputTokens() + completion.cacheReadTokens();
        usage.put("prompt_tokens", prompt);
        usage.put("completion_tokens", completion.outputTokens());
        usage.put("total_tokens", prompt + completion.outputTokens());
        usage.putObject("prompt_tokens_details").put("cached_tokens", completion.cacheReadTokens());
        return response;
    }

    static ObjectNode writeResponse(Completion completion, String model, long createdSeconds) {
        ObjectNode response = JSON.objectNode();
        long id = IDS.incrementAndGet();
        response.put("id", "resp_sim" + id);
        response.put("object", "response");
        response.put("created_at", createdSeconds);
        response.put("status", completion.truncated() ? "incomplete" : "completed");
        if (completion.truncated()) {
            response.putObject("incomplete_details").put("reason", "max_output_tokens");
        } else {
            response.putNull("incomplete_details");
        }
        response.put("model", model);
        ArrayNode output = response.putArray("output");
        if (completion.callsTool()) {
            ObjectNode call = output.addObject();
            call.put("type", "function_call");
            call.put("id", "fc_sim" + id);
            call.put("call_id", completion.toolCall().id());
            call.put("name", completion.toolCall().name());
            call.put("arguments", completion.toolCall().inputJson());
            call.put("status", "completed");
        } else {
            ObjectNode message = output.addObject();
            message.put("type", "message");
            message.put("id", "msg_sim" + id);
            message.put("status", "completed");
            message.put("role", "assistant");
            ObjectNode text = message.putArray("content").addObject();
            text.put("type", "output_text");
            text.put("text", completion.text());
            text.putArray("annotations");
        }
        ObjectNode usage = response.putObject("usage");
        long input = completion.inputTokens() + completion.cacheReadTokens();
        usage.put("input_tokens", input);
        usage.putObject("input_tokens_details").put("cached_tokens", completion.cacheReadTokens());
        usage.put("output_tokens", completion.outputTokens());
        usage.putObject("output_tokens_details").put("reasoning_tokens", 0);
        usage.put("total_tokens", input + completion.outputTokens());
        return response;
    }
}
