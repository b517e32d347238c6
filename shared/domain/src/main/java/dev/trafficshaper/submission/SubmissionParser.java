package dev.trafficshaper.submission;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.InvalidPayloadException;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.request.Identifiers;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;

/**
 * Reads a {@code POST /v1/requests} body into a {@link Submission}, or refuses it naming the first
 * field that is wrong. Strict on purpose: an unknown top-level field is refused too, so a typo
 * such as {@code "deadline"} fails loudly instead of silently getting the default.
 *
 * <p>The Converse body itself is checked only where the shaper depends on it: a non-empty
 * {@code messages} list and an explicit {@code inferenceConfig.maxTokens} within the model's
 * limit (without it Bedrock reserves the model maximum). Everything else is Bedrock's to validate.
 */
public final class SubmissionParser {

    private static final Set<String> FIELDS = Set.of("requestId", "model", "priority", "deadlineSeconds",
            "callbackUrl", "converse");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final ModelCatalog catalog;
    private final CallbackUrlPolicy callbacks;
    private final int maxBodyBytes;

    private SubmissionParser(ModelCatalog catalog, CallbackUrlPolicy callbacks, int maxBodyBytes) {
        this.catalog = catalog;
        this.callbacks = callbacks;
        this.maxBodyBytes = maxBodyBytes;
    }

    public static SubmissionParser create(ModelCatalog catalog, CallbackUrlPolicy callbacks, int maxBodyBytes) {
        return new SubmissionParser(catalog, callbacks, maxBodyBytes);
    }

    public Submission parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw new InvalidSubmissionException("", "request body is empty; expected a JSON object");
        }
        if (body.length > maxBodyBytes) {
            throw new InvalidSubmissionException("", "request body is " + body.length + " bytes, over the limit of "
                    + maxBodyBytes + " bytes");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonParseException e) {
            throw new InvalidSubmissionException("", "malformed JSON: " + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        } catch (IOException e) {
            throw new InvalidSubmissionException("", "malformed JSON: " + e.getMessage());
        }
        if (!(root instanceof ObjectNode)) {
            throw new InvalidSubmissionException("", "request body must be a JSON object");
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new InvalidSubmissionException(name, "unknown field '" + name + "'; expected one of "
                        + String.join(", ", FIELDS.stream().sorted().toList()));
            }
        }
        String requestId = optionalText(root, "requestId");
        if (requestId != null) {
            try {
                Identifiers.require("requestId", requestId);
            } catch (IllegalArgumentException e) {
                throw new InvalidSubmissionException("requestId", e.getMessage());
            }
        }
        String modelKey = optionalText(root, "model");
        if (modelKey == null) {
            throw new InvalidSubmissionException("model", "model: required; one of " + catalogKeys());
        }
        ModelConfig model = catalog.find(modelKey).orElseThrow(() -> new InvalidSubmissionException("model",
                "unknown model '" + modelKey + "'; configured models: " + catalogKeys()));
        Lane lane = lane(optionalText(root, "priority"));
        long deadlineSeconds = deadlineSeconds(root.get("deadlineSeconds"), model);
        String callbackUrl = optionalText(root, "callbackUrl");
        if (callbackUrl != null) {
            callbacks.check(callbackUrl);
        }
        JsonNode converse = root.get("converse");
        if (converse == null || converse.isNull()) {
            throw new InvalidSubmissionException("converse", "converse: required (a Bedrock Converse request body)");
        }
        if (!converse.isObject()) {
            throw new InvalidSubmissionException("converse", "converse must be a JSON object");
        }
        JsonNode messages = converse.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw new InvalidSubmissionException("converse.messages", "converse.messages must be a non-empty list");
        }
        long maxTokens = maxTokens(converse.path("inferenceConfig").get("maxTokens"), model);
        Payload payload;
        try {
            payload = Payload.json(JSON.writeValueAsBytes(converse));
        } catch (IOException | InvalidPayloadException e) {
            throw new InvalidSubmissionException("converse", "converse: " + e.getMessage());
        }
        return new Submission(requestId, model.key(), lane, deadlineSeconds, callbackUrl, payload, maxTokens);
    }

    private String catalogKeys() {
        return String.join(", ", catalog.all().stream().map(ModelConfig::key).sorted().toList());
    }

    private static Lane lane(String priority) {
        if (priority == null) {
            return Lane.INTERACTIVE;
        }
        try {
            return Lane.fromWireName(priority);
        } catch (IllegalArgumentException e) {
            throw new InvalidSubmissionException("priority", e.getMessage());
        }
    }

    private static long deadlineSeconds(JsonNode node, ModelConfig model) {
        if (node == null || node.isNull()) {
            return model.defaultDeadlineSeconds();
        }
        if (!node.isIntegralNumber()) {
            throw new InvalidSubmissionException("deadlineSeconds", "deadlineSeconds must be a whole number of seconds");
        }
        long value = node.asLong();
        if (value < 1 || value > model.maxDeadlineSeconds() || !node.canConvertToLong()) {
            throw new InvalidSubmissionException("deadlineSeconds", "deadlineSeconds must be between 1 and "
                    + model.maxDeadlineSeconds() + " for model " + model.key() + ", was " + node.asText());
        }
        return value;
    }

    private static long maxTokens(JsonNode node, ModelConfig model) {
        String field = "converse.inferenceConfig.maxTokens";
        if (node == null || node.isNull()) {
            throw new InvalidSubmissionException(field, field + ": required, so the shaper knows what Bedrock will"
                    + " reserve (at most " + model.maxTokensLimit() + " for model " + model.key() + ")");
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw new InvalidSubmissionException(field, field + " must be a whole number");
        }
        long value = node.asLong();
        if (value < 1 || value > model.maxTokensLimit()) {
            throw new InvalidSubmissionException(field, field + " must be between 1 and " + model.maxTokensLimit()
                    + " for model " + model.key() + ", was " + value);
        }
        return value;
    }

    private static String optionalText(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw new InvalidSubmissionException(field, field + " must be a string");
        }
        return node.asText();
    }
}
