package dev.trafficshaper.submission;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.model.NativeBody;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads the prompt out of each request shape, in the order the model reads it (tools, system,
 * messages). Blocks the reader does not know are counted by their JSON text, which overestimates
 * binary content; that is the safe direction.
 *
 * <p>Cache points: Converse {@code cachePoint} blocks and Anthropic {@code cache_control} mark
 * them explicitly. The OpenAI APIs cache a repeated prefix on their own; their reader places the
 * cache point before the last message or input item.
 */
public final class PromptReaders {

    private PromptReaders() {
    }

    /** The prompt of a body of {@code model}'s backend. */
    public static PromptContent read(ModelConfig model, JsonNode body) {
        return read(model.backend(), model.nativeBody().orElse(null), body);
    }

    public static PromptContent read(Backend backend, NativeBody nativeBody, JsonNode body) {
        return switch (backend) {
            case CONVERSE -> converse(body);
            case MANTLE_MESSAGES -> anthropic(body);
            case MANTLE_CHAT_COMPLETIONS -> chatCompletions(body);
            case MANTLE_RESPONSES -> responses(body);
            case INVOKE_MODEL -> switch (nativeBody) {
                case ANTHROPIC -> anthropic(body);
                case NOVA -> converse(body);
                case LLAMA -> llama(body);
                case TITAN -> titan(body);
                case MISTRAL -> body.has("messages") ? chatCompletions(body) : promptOnly(body.path("prompt"));
            };
        };
    }

    /** Converse, and Amazon Nova's native {@code messages-v1} body, which shares its blocks. */
    public static PromptContent converse(JsonNode body) {
        Builder b = new Builder();
        for (JsonNode tool : body.path("toolConfig").path("tools")) {
            if (tool.has("cachePoint")) {
                b.cachePoint();
            } else {
                JsonNode spec = tool.path("toolSpec");
                b.text(tool.toString());
                b.tool(spec.path("name").asText(""), spec.path("inputSchema").path("json"));
            }
        }
        converseBlocks(body.path("system"), b);
        JsonNode messages = body.path("messages");
        for (JsonNode message : messages) {
            b.turn();
            converseBlocks(message.path("content"), b);
        }
        b.lastUserText(lastMessage(messages, "user"), PromptReaders::textOfConverse);
        return b.build();
    }

    private static void converseBlocks(JsonNode blocks, Builder b) {
        for (JsonNode block : blocks) {
            converseBlock(block, b);
        }
    }

    private static void converseBlock(JsonNode block, Builder b) {
        if (block.path("text").isTextual()) {
            b.text(block.get("text").asText());
        } else if (block.has("cachePoint")) {
            b.cachePoint();
        } else if (block.has("image")) {
            JsonNode image = block.get("image");
            b.part(new PromptPart.Image(image.path("format").asText(null), base64(image.path("source").path("bytes"))));
        } else if (block.has("document")) {
            JsonNode document = block.get("document");
            JsonNode source = document.path("source");
            String format = document.path("format").asText(null);
            if (source.path("text").isTextual()) {
                b.part(new PromptPart.Document(format, null, source.get("text").asText()));
            } else if (source.path("content").isArray()) {
                StringBuilder text = new StringBuilder();
                source.get("content").forEach(c -> text.append(c.path("text").asText("")));
                b.part(new PromptPart.Document(format, null, text.toString()));
            } else {
                b.part(new PromptPart.Document(format, base64(source.path("bytes")), null));
            }
        } else if (block.has("toolUse")) {
            JsonNode use = block.get("toolUse");
            b.text(use.path("name").asText("") + use.path("input").toString());
        } else if (block.has("toolResult")) {
            for (JsonNode content : block.get("toolResult").path("content")) {
                if (content.has("json")) {
                    b.text(content.get("json").toString());
                } else {
                    converseBlock(content, b);
                }
            }
        } else if (block.has("reasoningContent")) {
            JsonNode reasoning = block.get("reasoningContent");
            b.text(reasoning.path("reasoningText").path("text").asText(reasoning.toString()));
        } else if (block.has("guardContent")) {
            b.text(block.get("guardContent").path("text").path("text").asText(block.toString()));
        } else {
            b.text(block.toString());
        }
    }

    /** Anthropic Messages, natively through InvokeModel or on bedrock-mantle. */
    public static PromptContent anthropic(JsonNode body) {
        Builder b = new Builder();
        for (JsonNode tool : body.path("tools")) {
            b.text(tool.toString());
            b.tool(tool.path("name").asText(""), tool.path("input_schema"));
            if (tool.has("cache_control")) {
                b.cachePoint();
            }
        }
        anthropicContent(body.get("system"), b);
        JsonNode messages = body.path("messages");
        for (JsonNode message : messages) {
            b.turn();
            anthropicContent(message.get("content"), b);
        }
        b.lastUserText(lastMessage(messages, "user"), PromptReaders::textOfAnthropic);
        return b.build();
    }

    private static void anthropicContent(JsonNode content, Builder b) {
        if (content == null || content.isNull()) {
            return;
        }
        if (content.isTextual()) {
            b.text(content.asText());
            return;
        }
        for (JsonNode block : content) {
            anthropicBlock(block, b);
            if (block.has("cache_control")) {
                b.cachePoint();
            }
        }
    }

    private static void anthropicBlock(JsonNode block, Builder b) {
        String type = block.path("type").asText("");
        JsonNode source = block.path("source");
        switch (type) {
            case "text" -> b.text(block.path("text").asText(""));
            case "image" -> b.part(new PromptPart.Image(source.path("media_type").asText(null),
                    "base64".equals(source.path("type").asText()) ? base64(source.path("data")) : null));
            case "document" -> {
                String mediaType = source.path("media_type").asText(null);
                switch (source.path("type").asText("")) {
                    case "base64" -> b.part(new PromptPart.Document(mediaType, base64(source.path("data")), null));
                    case "text" -> b.part(new PromptPart.Document(mediaType, null, source.path("data").asText("")));
                    case "content" -> {
                        StringBuilder text = new StringBuilder();
                        source.path("content").forEach(c -> text.append(c.path("text").asText("")));
                        b.part(new PromptPart.Document(mediaType, null, text.toString()));
                    }
                    default -> b.part(new PromptPart.Document(mediaType, null, null));
                }
            }
            case "tool_use" -> b.text(block.path("name").asText("") + block.path("input").toString());
            case "tool_result" -> anthropicContent(block.get("content"), b);
            case "thinking" -> b.text(block.path("thinking").asText(""));
            default -> b.text(block.toString());
        }
    }

    /** OpenAI Chat Completions (and Mistral's chat body). */
    public static PromptContent chatCompletions(JsonNode body) {
        Builder b = new Builder();
        for (JsonNode tool : body.path("tools")) {
            b.text(tool.toString());
            JsonNode function = tool.path("function");
            b.tool(function.path("name").asText(""), function.path("parameters"));
        }
        JsonNode messages = body.path("messages");
        for (int i = 0; i < messages.size(); i++) {
            if (i == messages.size() - 1 && i > 0) {
                b.cachePoint();
            }
            JsonNode message = messages.get(i);
            b.turn();
            JsonNode content = message.get("content");
            if (content != null && content.isTextual()) {
                b.text(content.asText());
            } else if (content != null && content.isArray()) {
                content.forEach(part -> openAiPart(part, b));
            }
            if (message.has("tool_calls")) {
                b.text(message.get("tool_calls").toString());
            }
        }
        b.lastUserText(lastMessage(messages, "user"), PromptReaders::textOfOpenAi);
        return b.build();
    }

    /** OpenAI Responses. */
    public static PromptContent responses(JsonNode body) {
        Builder b = new Builder();
        for (JsonNode tool : body.path("tools")) {
            b.text(tool.toString());
            b.tool(tool.path("name").asText(""), tool.path("parameters"));
        }
        if (body.path("instructions").isTextual()) {
            b.text(body.get("instructions").asText());
        }
        JsonNode input = body.path("input");
        if (input.isTextual()) {
            b.turn();
            b.text(input.asText());
            b.lastUserText(input.asText());
            return b.build();
        }
        for (int i = 0; i < input.size(); i++) {
            if (i == input.size() - 1 && i > 0) {
                b.cachePoint();
            }
            JsonNode item = input.get(i);
            b.turn();
            String type = item.path("type").asText("message");
            switch (type) {
                case "function_call" -> b.text(item.path("name").asText("") + item.path("arguments").asText(""));
                case "function_call_output" -> b.text(item.path("output").isTextual()
                        ? item.get("output").asText() : item.path("output").toString());
                case "message" -> {
                    JsonNode content = item.get("content");
                    if (content != null && content.isTextual()) {
                        b.text(content.asText());
                    } else if (content != null) {
                        content.forEach(part -> openAiPart(part, b));
                    }
                }
                default -> b.text(item.toString());
            }
        }
        JsonNode last = input.size() == 0 ? null : input.get(input.size() - 1);
        b.lastUserText(last != null && "user".equals(last.path("role").asText()) ? last : null,
                PromptReaders::textOfOpenAi);
        return b.build();
    }

    private static void openAiPart(JsonNode part, Builder b) {
        switch (part.path("type").asText("")) {
            case "text", "input_text", "output_text" -> b.text(part.path("text").asText(""));
            case "image_url" -> b.part(dataUrlImage(part.path("image_url").path("url").asText("")));
            case "input_image" -> b.part(dataUrlImage(part.path("image_url").asText("")));
            case "file" -> b.part(dataUrlDocument(part.path("file").path("file_data").asText(""),
                    part.path("file").path("filename").asText("")));
            case "input_file" -> b.part(dataUrlDocument(part.path("file_data").asText(""),
                    part.path("filename").asText("")));
            default -> b.text(part.toString());
        }
    }

    public static PromptContent llama(JsonNode body) {
        Builder b = new Builder();
        b.turn();
        b.text(body.path("prompt").asText(""));
        for (JsonNode image : body.path("images")) {
            b.part(new PromptPart.Image(null, base64(image)));
        }
        b.lastUserText(body.path("prompt").asText(""));
        return b.build();
    }

    public static PromptContent titan(JsonNode body) {
        return promptOnly(body.path("inputText"));
    }

    private static PromptContent promptOnly(JsonNode prompt) {
        Builder b = new Builder();
        b.turn();
        b.text(prompt.asText(""));
        b.lastUserText(prompt.asText(""));
        return b.build();
    }

    private static PromptPart.Image dataUrlImage(String url) {
        DataUrl data = DataUrl.parse(url);
        return new PromptPart.Image(data == null ? null : data.mediaType(), data == null ? null : data.bytes());
    }

    private static PromptPart.Document dataUrlDocument(String url, String filename) {
        DataUrl data = DataUrl.parse(url);
        String format = data != null ? data.mediaType() : filename.contains(".")
                ? filename.substring(filename.lastIndexOf('.') + 1) : null;
        return new PromptPart.Document(format, data == null ? null : data.bytes(), null);
    }

    /** {@code data:<media type>;base64,<data>}. */
    private record DataUrl(String mediaType, byte[] bytes) {
        static DataUrl parse(String url) {
            if (!url.startsWith("data:")) {
                return null;
            }
            int comma = url.indexOf(',');
            if (comma < 0 || !url.substring(0, comma).endsWith(";base64")) {
                return null;
            }
            byte[] bytes = base64(url.substring(comma + 1));
            String mediaType = url.substring(5, url.indexOf(';'));
            return bytes == null ? null : new DataUrl(mediaType, bytes);
        }
    }

    private static byte[] base64(JsonNode node) {
        return node != null && node.isTextual() ? base64(node.asText()) : null;
    }

    private static byte[] base64(String text) {
        try {
            return Base64.getMimeDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static JsonNode lastMessage(JsonNode messages, String role) {
        if (!messages.isArray() || messages.isEmpty()) {
            return null;
        }
        JsonNode last = messages.get(messages.size() - 1);
        return role.equals(last.path("role").asText()) ? last : null;
    }

    private static String textOfConverse(JsonNode message) {
        StringBuilder text = new StringBuilder();
        message.path("content").forEach(block -> text.append(block.path("text").asText("")));
        return text.toString();
    }

    private static String textOfAnthropic(JsonNode message) {
        JsonNode content = message.path("content");
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        content.forEach(block -> text.append("text".equals(block.path("type").asText()) ? block.path("text").asText("")
                : ""));
        return text.toString();
    }

    private static String textOfOpenAi(JsonNode message) {
        JsonNode content = message.path("content");
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        content.forEach(part -> text.append(part.path("text").asText("")));
        return text.toString();
    }

    private static final class Builder {
        private final List<PromptPart> parts = new ArrayList<>();
        private final List<PromptContent.Tool> tools = new ArrayList<>();
        private int turns;
        private String lastUserText = "";

        void text(String text) {
            parts.add(new PromptPart.Text(text));
        }

        void part(PromptPart part) {
            parts.add(part);
        }

        void cachePoint() {
            parts.add(new PromptPart.CachePoint());
        }

        void turn() {
            turns++;
        }

        void tool(String name, JsonNode schema) {
            tools.add(new PromptContent.Tool(name, schema == null || schema.isMissingNode() ? "{}" : schema.toString()));
        }

        void lastUserText(String text) {
            lastUserText = text;
        }

        void lastUserText(JsonNode message, java.util.function.Function<JsonNode, String> text) {
            lastUserText = message == null ? "" : text.apply(message);
        }

        PromptContent build() {
            return new PromptContent(parts, turns, tools, lastUserText);
        }
    }
}
