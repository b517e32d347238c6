package dev.trafficshaper.submission;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.InvalidPayloadException;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.RawJson;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Iterator;
import java.util.Set;

/**
 * Reads a {@code POST /v1/requests} body into a {@link Submission}, or refuses it naming the first
 * field that is wrong. Strict on purpose: an unknown top-level field is refused too, so a typo
 * such as {@code "deadline"} fails loudly instead of silently getting the default.
 *
 * <p>The request body travels under the key of the model's backend ({@code converse},
 * {@code invokeModel}, {@code chatCompletions}, {@code responses}, {@code messages}) and is kept
 * byte for byte as it came. It is checked where the shaper depends on it or where a failure is
 * certain now ({@link RequestShapes}): the right shape for the backend, only the shape's known
 * fields, an explicit output limit within the model's (without one Bedrock reserves the model
 * maximum), no streaming, a service tier the model offers ({@link ModelFit}). Everything else is
 * Bedrock's to validate.
 *
 * <p>{@code serviceTier} at the top level is InvokeModel's tier header; the other shapes carry
 * their tier in the body.
 */
public final class SubmissionParser {

    private static final Set<String> FIELDS = fields();
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final Pattern DUPLICATE = Pattern.compile("Duplicate field '(.*)'");

    /** InvokeModel's service tier, which travels as a header, not in the native body. */
    public static final String SERVICE_TIER = "serviceTier";

    private final ModelCatalog catalog;
    private final CallbackUrlPolicy callbacks;
    private final int maxBodyBytes;

    private SubmissionParser(ModelCatalog catalog, CallbackUrlPolicy callbacks, int maxBodyBytes) {
        this.catalog = catalog;
        this.callbacks = callbacks;
        this.maxBodyBytes = maxBodyBytes;
    }

    private static Set<String> fields() {
        Set<String> fields = new java.util.TreeSet<>(Set.of("requestId", "model", "priority", "deadlineSeconds",
                "callbackUrl", SERVICE_TIER));
        for (Backend backend : Backend.values()) {
            fields.add(backend.bodyKey());
        }
        return Set.copyOf(fields);
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
        requireUtf8(body);
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonParseException e) {
            Matcher duplicate = DUPLICATE.matcher(e.getOriginalMessage());
            if (duplicate.find()) {
                throw new InvalidSubmissionException(duplicate.group(1), "duplicate key '" + duplicate.group(1)
                        + "' at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr()
                        + "; each key may appear once in an object");
            }
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
            RequestIds.require(requestId);
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
        String key = model.backend().bodyKey();
        for (Backend other : Backend.values()) {
            if (other != model.backend() && root.has(other.bodyKey())) {
                throw new InvalidSubmissionException(other.bodyKey(), "model " + model.key() + " (backend "
                        + model.backend().wireName() + ") takes its body under '" + key + "', not '"
                        + other.bodyKey() + "'");
            }
        }
        JsonNode bodyNode = root.get(key);
        if (bodyNode == null || bodyNode.isNull()) {
            throw new InvalidSubmissionException(key, key + ": required (the " + model.backend().wireName()
                    + " request body for model " + model.key() + ")");
        }
        if (!bodyNode.isObject()) {
            throw new InvalidSubmissionException(key, key + " must be a JSON object");
        }
        ShapedBody shaped = RequestShapes.of(model).check(bodyNode, key, model);
        JsonNode tierNode = root.get(SERVICE_TIER);
        if (tierNode != null && !tierNode.isNull()) {
            if (model.backend() != Backend.INVOKE_MODEL) {
                throw new InvalidSubmissionException(SERVICE_TIER, SERVICE_TIER + " is InvokeModel's tier header;"
                        + " a " + model.backend().wireName() + " body names its tier itself");
            }
            shaped = shaped.withTier(RequestShapes.tier(tierNode, SERVICE_TIER), SERVICE_TIER);
        }
        Payload payload;
        try {
            payload = Payload.json(RawJson.member(body, key).orElseThrow());
        } catch (InvalidPayloadException e) {
            throw new InvalidSubmissionException(key, key + ": " + e.getMessage());
        }
        Submission submission = new Submission(requestId, model.key(), lane, deadlineSeconds, callbackUrl,
                model.backend(), payload, shaped, BodyDigest.of(root));
        ModelFit.check(model, submission);
        return submission;
    }

    /**
     * Refuses a body that is not well-formed UTF-8, overlong forms and encoded surrogates
     * included: a decoder that repairs them would let two byte sequences mean one key.
     */
    private static void requireUtf8(byte[] body) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body));
        } catch (CharacterCodingException e) {
            throw new InvalidSubmissionException("", "request body is not valid UTF-8 (" + e.getMessage() + ")");
        }
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
