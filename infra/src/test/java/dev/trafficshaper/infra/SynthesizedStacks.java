package dev.trafficshaper.infra;

import dev.trafficshaper.infra.config.DeploymentSettings;
import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.infra.config.Stage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.cxapi.CloudAssembly;

/**
 * The stacks the tests inspect, synthesized once per JVM: synthesis runs the CDK's JavaScript
 * through jsii and takes seconds, so every test class shares these.
 */
final class SynthesizedStacks {

    static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    static final Path MODELS_FILE = REPOSITORY.resolve("config/models.json");
    static final Path STATEMACHINES = REPOSITORY.resolve("statemachines");

    private static Synthesized development;
    private static Synthesized production;

    private SynthesizedStacks() {
    }

    /** The {@code dev} stage from the repository's models file, no WAF. */
    static synchronized Synthesized development() {
        if (development == null) {
            development = synthesize(Stage.named("dev"), false);
        }
        return development;
    }

    /** The {@code prod} stage with the WAF web ACL and an alarm email, pinned to us-east-1. */
    static synchronized Synthesized production() {
        if (production == null) {
            production = synthesize(Stage.named("prod"), true);
        }
        return production;
    }

    static DeploymentSettings settings(Stage stage, boolean webAcl) {
        return DeploymentSettings.builder(stage, ModelsConfiguration.read(MODELS_FILE), functionsJar())
                .webAcl(webAcl)
                .alarmEmail(webAcl ? "ops@example.com" : null)
                .region(stage.production() ? "us-east-1" : null)
                .build();
    }

    /**
     * An app with the context {@code cdk.json} gives {@code cdk synth} (the feature flags above all),
     * so the tests inspect the template a deployment gets.
     */
    static App app() {
        return new App(AppProps.builder().context(cdkJsonContext()).build());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> cdkJsonContext() {
        try {
            Map<String, Object> cdkJson = new ObjectMapper().readValue(REPOSITORY.resolve("cdk.json").toFile(), Map.class);
            return (Map<String, Object>) cdkJson.get("context");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Synthesized synthesize(Stage stage, boolean webAcl) {
        App app = app();
        TrafficShaperStack stack = TrafficShaperApp.create(app, settings(stage, webAcl), STATEMACHINES);
        CloudAssembly assembly = app.synth();
        @SuppressWarnings("unchecked")
        Map<String, Object> template = (Map<String, Object>) assembly.getStackByName(stack.getStackName()).getTemplate();
        return new Synthesized(stack, Template.fromJSON(template), findings(assembly, stack.getStackName()));
    }

    /** The warnings and errors the synthesis recorded for the stack (cdk-nag reports there). */
    static List<Finding> findings(CloudAssembly assembly, String stackName) {
        try {
            ObjectMapper mapper = new ObjectMapper();
            Path directory = Path.of(assembly.getDirectory());
            JsonNode artifact = mapper.readTree(directory.resolve("manifest.json").toFile())
                    .path("artifacts").path(stackName);
            List<Finding> findings = new ArrayList<>();
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

    private static void collect(JsonNode metadataByPath, List<Finding> into) {
        metadataByPath.properties().forEach(entry -> entry.getValue().forEach(item -> {
            String type = item.path("type").asText();
            if (type.equals("aws:cdk:warning") || type.equals("aws:cdk:error")) {
                into.add(new Finding(entry.getKey(), type, item.path("data").asText()));
            }
        }));
    }

    /** A stand-in for the functions jar: the CDK only hashes and stages it. */
    static synchronized Path functionsJar() {
        try {
            Path jar = Path.of("target", "test-functions", "traffic-shaper-functions.jar");
            if (!Files.exists(jar)) {
                Files.createDirectories(jar.getParent());
                try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out)) {
                    zip.putNextEntry(new ZipEntry("placeholder.txt"));
                    zip.write("handlers are built by the functions module".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    zip.closeEntry();
                }
            }
            return jar.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static final class Synthesized {

        private final TrafficShaperStack stack;
        private final Template template;
        private final List<Finding> findings;

        Synthesized(TrafficShaperStack stack, Template template, List<Finding> findings) {
            this.stack = stack;
            this.template = template;
            this.findings = List.copyOf(findings);
        }

        TrafficShaperStack stack() {
            return stack;
        }

        Template template() {
            return template;
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> resources() {
            return (Map<String, Object>) template.toJSON().get("Resources");
        }

        /** Warnings and errors the synthesis attached to constructs. */
        List<Finding> findings() {
            return findings;
        }
    }

    /** A warning or error from synthesis: the construct path, {@code aws:cdk:warning|error}, the text. */
    record Finding(String path, String type, String text) {

        @Override
        public String toString() {
            return type + " " + path + ": " + text;
        }
    }
}
