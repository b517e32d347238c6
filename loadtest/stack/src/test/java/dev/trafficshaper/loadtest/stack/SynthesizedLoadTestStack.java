package dev.trafficshaper.loadtest.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.ModelCatalog;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.cxapi.CloudAssembly;

/**
 * The load-test stack as the tests inspect it, synthesized once per JVM (synthesis runs the CDK's
 * JavaScript through jsii and takes seconds), from the repository's models file and state machines.
 */
final class SynthesizedLoadTestStack {

    static final Path REPOSITORY = Path.of("../..").toAbsolutePath().normalize();
    static final Path STATEMACHINES = REPOSITORY.resolve("statemachines");

    private static Synthesized synthesized;

    private SynthesizedLoadTestStack() {
    }

    static synchronized Synthesized get() {
        if (synthesized == null) {
            App app = new App();
            LoadTestSettings settings = new LoadTestSettings(LoadTestSettings.DEFAULT_STACK_NAME,
                    ModelCatalog.read(REPOSITORY.resolve("config/models.json")), placeholderJar(), 30);
            TrafficShaperLoadTestStack stack = LoadTestApp.create(app, settings, STATEMACHINES);
            CloudAssembly assembly = app.synth();
            @SuppressWarnings("unchecked")
            Map<String, Object> template = (Map<String, Object>) assembly.getStackByName(stack.getStackName())
                    .getTemplate();
            synthesized = new Synthesized(stack, Template.fromJSON(template), template,
                    findings(assembly, stack.getStackName()));
        }
        return synthesized;
    }

    /** The warnings and errors synthesis attached to constructs (cdk-nag reports there). */
    static List<String> findings(CloudAssembly assembly, String stackName) {
        try {
            ObjectMapper mapper = new ObjectMapper();
            Path directory = Path.of(assembly.getDirectory());
            JsonNode artifact = mapper.readTree(directory.resolve("manifest.json").toFile())
                    .path("artifacts").path(stackName);
            List<String> findings = new ArrayList<>();
            collect(artifact.path("metadata"), findings);
            if (artifact.hasNonNull("additionalMetadataFile")) {
                collect(mapper.readTree(directory.resolve(artifact.get("additionalMetadataFile").asText()).toFile()),
                        findings);
            }
            return findings;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void collect(JsonNode metadataByPath, List<String> into) {
        metadataByPath.properties().forEach(entry -> entry.getValue().forEach(item -> {
            String type = item.path("type").asText();
            if (type.equals("aws:cdk:warning") || type.equals("aws:cdk:error")) {
                into.add(type + " " + entry.getKey() + ": " + item.path("data").asText());
            }
        }));
    }

    /** A stand-in for the load-test jar: the CDK only hashes and stages it. */
    static synchronized Path placeholderJar() {
        try {
            Path jar = Path.of("target", "test-loadtest", "traffic-shaper-loadtest.jar");
            if (!Files.exists(jar)) {
                Files.createDirectories(jar.getParent());
                try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out)) {
                    zip.putNextEntry(new ZipEntry("placeholder.txt"));
                    zip.write("the workers are built by the loadtest module".getBytes(StandardCharsets.UTF_8));
                    zip.closeEntry();
                }
            }
            return jar.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    record Synthesized(TrafficShaperLoadTestStack stack, Template template, Map<String, Object> json,
                       List<String> findings) {

        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> resources() {
            return (Map<String, Map<String, Object>>) json.get("Resources");
        }

        List<Map<String, Object>> resourcesOfType(String type) {
            return resources().values().stream().filter(r -> type.equals(r.get("Type"))).toList();
        }
    }
}
