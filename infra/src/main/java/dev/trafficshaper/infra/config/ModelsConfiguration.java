package dev.trafficshaper.infra.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.BackendSettings;
import dev.trafficshaper.model.InvalidModelsFileException;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The deployment's models file, validated with the same {@link ModelCatalog} parser the functions
 * use at run time, so a bad file fails {@code cdk synth} instead of a Lambda cold start.
 *
 * <p>The functions receive the file as compact JSON without its {@code description} fields:
 * inline in an environment variable when it fits the Lambda 4 KB environment budget comfortably,
 * otherwise in an SSM parameter.
 */
public final class ModelsConfiguration {

    /** Largest compact file passed inline; the rest of the 4 KB environment holds names and ARNs. */
    public static final int INLINE_LIMIT_BYTES = 2_048;
    /** Largest value of a standard SSM parameter. */
    public static final int STANDARD_PARAMETER_BYTES = 4_096;
    /** Largest value of an advanced SSM parameter, and so the largest models file a deployment takes. */
    public static final int ADVANCED_PARAMETER_BYTES = 8_192;

    private final Path source;
    private final ModelCatalog catalog;
    private final String compactJson;

    private ModelsConfiguration(Path source, ModelCatalog catalog, String compactJson) {
        this.source = source;
        this.catalog = catalog;
        this.compactJson = compactJson;
    }

    public static ModelsConfiguration read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new InvalidDeploymentException(file + ": cannot read the models file (" + e.getMessage()
                    + "); copy config/models.json or pass -c modelsFile=PATH", e);
        }
        return parse(file, text);
    }

    static ModelsConfiguration parse(Path source, String text) {
        ModelCatalog catalog;
        try {
            catalog = ModelCatalog.parse(text);
        } catch (InvalidModelsFileException e) {
            throw new InvalidDeploymentException(source + " is not a valid models file:\n  - "
                    + String.join("\n  - ", e.problems()), e);
        }
        List<String> withApiKeys = catalog.all().stream()
                .filter(model -> model.backendSettings().auth() == BackendSettings.MantleAuth.API_KEY)
                .map(model -> "models." + model.key() + ".auth: api-key").toList();
        if (!withApiKeys.isEmpty()) {
            throw new InvalidDeploymentException(source + ": the deployed Bedrock Processor signs bedrock-mantle"
                    + " calls with its IAM role (granted bedrock-mantle:CreateInference); a long-lived API key would"
                    + " have to sit in its environment. Leave auth at sigv4 (the default):\n  - "
                    + String.join("\n  - ", withApiKeys));
        }
        String compact = compact(text);
        int size = compact.getBytes(StandardCharsets.UTF_8).length;
        if (size > ADVANCED_PARAMETER_BYTES) {
            throw new InvalidDeploymentException(source + " is " + size + " bytes without its descriptions, over the "
                    + ADVANCED_PARAMETER_BYTES + " bytes an SSM parameter can hold for the functions; remove models"
                    + " this deployment does not serve");
        }
        return new ModelsConfiguration(source, catalog, compact);
    }

    private static String compact(String text) {
        try {
            ObjectMapper mapper = new ObjectMapper();
            JsonNode root = mapper.readTree(text);
            root.get("models").forEach(model -> ((ObjectNode) model).remove("description"));
            return mapper.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("models file parsed once but not twice", e);
        }
    }

    public Path source() {
        return source;
    }

    public ModelCatalog catalog() {
        return catalog;
    }

    public List<ModelConfig> models() {
        return List.copyOf(catalog.all());
    }

    public List<String> modelKeys() {
        return models().stream().map(ModelConfig::key).toList();
    }

    /** The models file as the functions read it. */
    public String compactJson() {
        return compactJson;
    }

    public boolean fitsInline() {
        return compactSize() <= INLINE_LIMIT_BYTES;
    }

    public boolean needsAdvancedParameter() {
        return compactSize() > STANDARD_PARAMETER_BYTES;
    }

    private int compactSize() {
        return compactJson.getBytes(StandardCharsets.UTF_8).length;
    }

    public long longestDeadlineSeconds() {
        return longestDeadlineModel().maxDeadlineSeconds();
    }

    /** The model with the longest {@code maxDeadlineSeconds}, for error messages that name it. */
    public ModelConfig longestDeadlineModel() {
        return models().stream().max(java.util.Comparator.comparingLong(ModelConfig::maxDeadlineSeconds))
                .orElseThrow();
    }

    public long largestMaxTokens() {
        return models().stream().mapToLong(ModelConfig::maxTokensLimit).max().orElseThrow();
    }
}
