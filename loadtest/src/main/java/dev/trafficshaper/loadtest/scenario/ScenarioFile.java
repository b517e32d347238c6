package dev.trafficshaper.loadtest.scenario;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.ShortHorizon;
import dev.trafficshaper.pacing.PacerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads and writes scenarios as JSON; unknown fields are errors so typos do not go unnoticed. */
public final class ScenarioFile {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    public static Scenario parse(String json) {
        try {
            JsonNode tree = MAPPER.readTree(json);
            if (!(tree instanceof ObjectNode root)) {
                throw new IllegalArgumentException("invalid scenario: the file must hold a JSON object");
            }
            rejectUnknownFields(root);
            withDefaults(root, "quota", MAPPER.createObjectNode().put("tpm", 0).put("rpm", 0)
                    .put("inputTpm", 0).put("outputTpm", 0).put("outputBurndown", 1));
            withDefaults(root, "shaper", MAPPER.valueToTree(PacerSettings.defaults()));
            withDefaults(root, "leniency", MAPPER.valueToTree(Leniency.STRICT));
            withDefaults(root, "faults", MAPPER.valueToTree(Faults.NONE));
            withDefaults(root, "deployment", MAPPER.valueToTree(Deployment.DEFAULT));
            withDefaults(root, "shortHorizon", MAPPER.valueToTree(ShortHorizon.OFF));
            return MAPPER.treeToValue(root, Scenario.class);
        } catch (JsonMappingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException ? e.getCause() : e;
            String where = e.getPathReference() == null ? "" : " (at " + e.getPathReference() + ")";
            throw new IllegalArgumentException("invalid scenario: " + cause.getMessage().split("\n")[0] + where, e);
        } catch (IOException e) {
            throw new IllegalArgumentException("invalid scenario JSON: " + e.getMessage().split("\n")[0], e);
        }
    }

    private static void rejectUnknownFields(ObjectNode root) {
        java.util.Set<String> known = new java.util.TreeSet<>();
        for (java.lang.reflect.RecordComponent component : Scenario.class.getRecordComponents()) {
            known.add(component.getName());
        }
        root.fieldNames().forEachRemaining(field -> {
            if (!known.contains(field)) {
                throw new IllegalArgumentException("invalid scenario: unknown field '" + field + "' (known: "
                        + String.join(", ", known) + ")");
            }
        });
    }

    /** Lets a scenario name only the fields it changes in the nested settings objects. */
    private static void withDefaults(ObjectNode root, String field, ObjectNode merged) {
        JsonNode given = root.get(field);
        if (given instanceof ObjectNode object) {
            object.fieldNames().forEachRemaining(name -> {
                if (object.get(name) instanceof ObjectNode inner && merged.get(name) instanceof ObjectNode) {
                    withDefaults(object, name, (ObjectNode) merged.get(name));
                }
            });
            merged.setAll(object);
            root.set(field, merged);
        }
    }

    public static Scenario read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read scenario file " + file + ": " + e.getMessage(), e);
        }
    }

    /** A scenario by built-in name, or else from a JSON file at that path. */
    public static Scenario resolve(String nameOrFile) {
        return BuiltInScenarios.find(nameOrFile).orElseGet(() -> {
            Path path = Path.of(nameOrFile);
            if (!Files.exists(path)) {
                throw new IllegalArgumentException("no built-in scenario or file named '" + nameOrFile
                        + "'; built-in: " + String.join(", ", BuiltInScenarios.names()));
            }
            return read(path);
        });
    }

    public static String write(Scenario scenario) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(scenario);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private ScenarioFile() {
    }
}
