package dev.trafficshaper.loadtest.stack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code statemachines/loadtest-run.asl.json}, checked before it is deployed: every {@code ${...}}
 * placeholder is one the stack fills, and the fan-out is a Distributed Map of Standard child
 * executions (an Express child could not wait for its window, and runs five minutes at most).
 */
final class RunDefinition {

    static final String FILE = "loadtest-run.asl.json";
    static final String FAN_OUT_STATE = "PlaySlices";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9]+)}");

    private RunDefinition() {
    }

    static String read(Path directory, Set<String> substituted) {
        Path file = directory.resolve(FILE);
        String definition;
        try {
            definition = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the run's state machine (" + e.getMessage() + ")",
                    e);
        }
        Set<String> unknown = new TreeSet<>();
        Matcher placeholder = PLACEHOLDER.matcher(definition);
        while (placeholder.find()) {
            if (!substituted.contains(placeholder.group(1))) {
                unknown.add("${" + placeholder.group(1) + "}");
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(file + ": " + String.join(", ", unknown) + " is not filled in by the"
                    + " stack; it fills " + new TreeSet<>(substituted));
        }
        JsonNode fanOut;
        try {
            fanOut = new ObjectMapper().readTree(PLACEHOLDER.matcher(definition).replaceAll("placeholder"))
                    .path("States").path(FAN_OUT_STATE);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        JsonNode processor = fanOut.path("ItemProcessor").path("ProcessorConfig");
        if (!"Map".equals(fanOut.path("Type").asText()) || !"DISTRIBUTED".equals(processor.path("Mode").asText())
                || !"STANDARD".equals(processor.path("ExecutionType").asText())) {
            throw new IllegalArgumentException(file + ": state " + FAN_OUT_STATE + " must be a Map with ProcessorConfig"
                    + " {\"Mode\": \"DISTRIBUTED\", \"ExecutionType\": \"STANDARD\"}");
        }
        return definition;
    }
}
