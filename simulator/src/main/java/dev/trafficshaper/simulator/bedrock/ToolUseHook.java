package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.submission.PromptContent;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test hook that makes the simulated model call a tool. It lives in the prompt, not in a
 * header, so it passes through the shaper (which sends bodies unchanged and adds no headers): when
 * a request offers tools and its last user turn contains {@code #sim:use-tool} (the first tool)
 * or {@code #sim:use-tool=NAME}, the model answers with a call of that tool instead of text. The
 * arguments fill the tool's required properties by their type ({@code "sim"}, {@code 1},
 * {@code true}, {@code []}, {@code {}}). A follow-up that carries the tool's result (and so no
 * marker in its last user turn) gets an ordinary text answer.
 */
final class ToolUseHook {

    static final String MARKER = "#sim:use-tool";
    private static final Pattern HOOK = Pattern.compile(Pattern.quote(MARKER) + "(?:=([A-Za-z0-9_.:-]+))?");
    private static final AtomicLong IDS = new AtomicLong();

    private ToolUseHook() {
    }

    static Optional<ToolCall> call(PromptContent prompt) {
        if (prompt.tools().isEmpty()) {
            return Optional.empty();
        }
        Matcher matcher = HOOK.matcher(prompt.lastUserText());
        if (!matcher.find()) {
            return Optional.empty();
        }
        String wanted = matcher.group(1);
        PromptContent.Tool tool = prompt.tools().stream().filter(t -> wanted == null || t.name().equals(wanted))
                .findFirst().orElse(null);
        if (tool == null) {
            return Optional.empty();
        }
        return Optional.of(new ToolCall("tooluse_sim_" + IDS.incrementAndGet(), tool.name(),
                new String(Json.write(arguments(tool.inputSchemaJson())), java.nio.charset.StandardCharsets.UTF_8)));
    }

    private static ObjectNode arguments(String schemaJson) {
        ObjectNode arguments = Json.MAPPER.createObjectNode();
        JsonNode schema;
        try {
            schema = Json.MAPPER.readTree(schemaJson);
        } catch (java.io.IOException e) {
            return arguments;
        }
        JsonNode properties = schema.path("properties");
        for (JsonNode required : schema.path("required")) {
            String name = required.asText();
            switch (properties.path(name).path("type").asText("string")) {
                case "integer", "number" -> arguments.put(name, 1);
                case "boolean" -> arguments.put(name, true);
                case "array" -> arguments.putArray(name);
                case "object" -> arguments.putObject(name);
                default -> arguments.put(name, "sim");
            }
        }
        return arguments;
    }
}
