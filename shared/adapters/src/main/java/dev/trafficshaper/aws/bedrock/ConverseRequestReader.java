package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.InferenceConfiguration;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.SystemContentBlock;

/**
 * Turns a Converse request body into the SDK's request. The SDK offers no JSON reader for its
 * request shapes, so this reads the subset the shaper supports: text messages, system text and
 * the basic inference settings. Anything else is refused rather than dropped, because a request
 * silently stripped of its tools or guardrail would run, cost quota and answer something else.
 */
final class ConverseRequestReader {

    private static final Set<String> TOP_LEVEL = Set.of("messages", "system", "inferenceConfig");
    private static final Set<String> INFERENCE = Set.of("maxTokens", "temperature", "topP", "stopSequences");

    private final ObjectMapper json;

    ConverseRequestReader(ObjectMapper json) {
        this.json = json;
    }

    /** @throws IllegalArgumentException if the body is not a Converse request this reader supports */
    ConverseRequest read(String modelId, String body) {
        JsonNode root = parse(body);
        onlyFields(root, TOP_LEVEL, "");
        ConverseRequest.Builder request = ConverseRequest.builder().modelId(modelId).messages(messages(root));
        JsonNode system = root.get("system");
        if (system != null) {
            request.system(system(system));
        }
        JsonNode inference = root.get("inferenceConfig");
        if (inference != null) {
            request.inferenceConfig(inference(inference));
        }
        return request.build();
    }

    private JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            throw new IllegalArgumentException("the Converse request body is empty");
        }
        try {
            JsonNode root = json.readTree(body);
            if (!root.isObject()) {
                throw new IllegalArgumentException("the Converse request body must be a JSON object");
            }
            return root;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the Converse request body is not valid JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    private static List<Message> messages(JsonNode root) {
        JsonNode messages = root.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw new IllegalArgumentException("messages must be a non-empty array");
        }
        List<Message> result = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            String path = "messages[" + i + "]";
            JsonNode message = object(messages.get(i), path);
            onlyFields(message, Set.of("role", "content"), path + ".");
            result.add(Message.builder().role(role(message.get("role"), path))
                    .content(texts(message.get("content"), path + ".content")).build());
        }
        return result;
    }

    private static ConversationRole role(JsonNode role, String path) {
        ConversationRole parsed = role == null || !role.isTextual()
                ? null : ConversationRole.fromValue(role.asText());
        if (parsed == null || parsed == ConversationRole.UNKNOWN_TO_SDK_VERSION) {
            throw new IllegalArgumentException(path + ".role must be user or assistant");
        }
        return parsed;
    }

    private static List<ContentBlock> texts(JsonNode content, String path) {
        List<ContentBlock> blocks = new ArrayList<>();
        for (String text : textBlocks(content, path)) {
            blocks.add(ContentBlock.fromText(text));
        }
        return blocks;
    }

    private static List<SystemContentBlock> system(JsonNode system) {
        List<SystemContentBlock> blocks = new ArrayList<>();
        for (String text : textBlocks(system, "system")) {
            blocks.add(SystemContentBlock.fromText(text));
        }
        return blocks;
    }

    private static List<String> textBlocks(JsonNode content, String path) {
        if (content == null || !content.isArray() || content.isEmpty()) {
            throw new IllegalArgumentException(path + " must be a non-empty array");
        }
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < content.size(); i++) {
            String blockPath = path + "[" + i + "]";
            JsonNode block = object(content.get(i), blockPath);
            JsonNode text = block.get("text");
            if (block.size() != 1 || text == null) {
                throw new IllegalArgumentException(blockPath + ": only text content blocks are supported");
            }
            if (!text.isTextual()) {
                throw new IllegalArgumentException(blockPath + ".text must be a string");
            }
            texts.add(text.asText());
        }
        return texts;
    }

    private static InferenceConfiguration inference(JsonNode node) {
        JsonNode config = object(node, "inferenceConfig");
        onlyFields(config, INFERENCE, "inferenceConfig.");
        InferenceConfiguration.Builder builder = InferenceConfiguration.builder();
        JsonNode maxTokens = config.get("maxTokens");
        if (maxTokens != null) {
            if (!maxTokens.canConvertToInt() || !maxTokens.isIntegralNumber() || maxTokens.intValue() < 1) {
                throw new IllegalArgumentException("inferenceConfig.maxTokens must be a positive integer");
            }
            builder.maxTokens(maxTokens.intValue());
        }
        JsonNode temperature = config.get("temperature");
        if (temperature != null) {
            builder.temperature(number(temperature, "inferenceConfig.temperature"));
        }
        JsonNode topP = config.get("topP");
        if (topP != null) {
            builder.topP(number(topP, "inferenceConfig.topP"));
        }
        JsonNode stops = config.get("stopSequences");
        if (stops != null) {
            if (!stops.isArray()) {
                throw new IllegalArgumentException("inferenceConfig.stopSequences must be an array of strings");
            }
            List<String> sequences = new ArrayList<>();
            for (JsonNode stop : stops) {
                if (!stop.isTextual()) {
                    throw new IllegalArgumentException("inferenceConfig.stopSequences must be an array of strings");
                }
                sequences.add(stop.asText());
            }
            builder.stopSequences(sequences);
        }
        return builder.build();
    }

    private static float number(JsonNode node, String path) {
        if (!node.isNumber()) {
            throw new IllegalArgumentException(path + " must be a number");
        }
        return node.floatValue();
    }

    private static JsonNode object(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(path + " must be an object");
        }
        return node;
    }

    private static void onlyFields(JsonNode node, Set<String> allowed, String prefix) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new IllegalArgumentException(prefix + name + " is not supported by the shaper");
            }
        }
    }
}
