package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import dev.trafficshaper.submission.InvalidSubmissionException;
import dev.trafficshaper.submission.SubmissionParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The schema API Gateway checks a submission against, as synthesized, compared body by body with
 * the Submit function's {@link SubmissionParser} over the repository's models file: the edge never
 * refuses what the function accepts, refuses what the function would refuse for a reason the
 * schema can express, and leaves exactly the documented checks (limits per model, callback hosts)
 * to the function.
 */
class RequestSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MESSAGES = "\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"Hi\"}]}]";

    private static final JsonNode SCHEMA = synthesizedSchema();
    private static final SubmissionParser PARSER = SubmissionParser.create(
            SynthesizedStacks.development().stack().settings().models().catalog(),
            CallbackUrlPolicy.strict(), PayloadPolicy.DEFAULT_MAX_BYTES);

    /** Where a body is refused, if anywhere. */
    enum Verdict { ACCEPTED, REFUSED_AT_THE_EDGE, REFUSED_BY_THE_FUNCTION }

    static Stream<Arguments> bodies() {
        return Stream.of(
                body(Verdict.ACCEPTED, "the minimum", "{\"model\": \"nova-lite\", \"converse\": " + converse(10) + "}"),
                body(Verdict.ACCEPTED, "every field", "{\"requestId\": \"order-42.v1~retry_3\", \"model\": \"claude-sonnet\","
                        + " \"priority\": \"bulk\", \"deadlineSeconds\": 3600, \"callbackUrl\": \"https://hooks.example.com/s\","
                        + " \"converse\": " + converse(64000) + "}"),
                body(Verdict.ACCEPTED, "a 128-character request id", submission("\"requestId\": \"" + "a".repeat(128) + "\"")),
                body(Verdict.ACCEPTED, "null optional fields", submission("\"requestId\": null, \"priority\": null,"
                        + " \"deadlineSeconds\": null, \"callbackUrl\": null")),
                body(Verdict.ACCEPTED, "an upper-case https scheme", submission("\"callbackUrl\": \"HTTPS://hooks.example.com/s\"")),
                body(Verdict.ACCEPTED, "the rest of the Converse body is Bedrock's", "{\"model\": \"nova-lite\", \"converse\":"
                        + " {\"system\": [{\"text\": \"Be brief\"}], " + MESSAGES + ", \"inferenceConfig\": {\"maxTokens\": 5,"
                        + " \"temperature\": 0.2}, \"toolConfig\": {}, \"guardrailConfig\": {}, \"serviceTier\": {\"type\": \"default\"}}}"),
                body(Verdict.ACCEPTED, "interactive priority", submission("\"priority\": \"interactive\"")),

                body(Verdict.REFUSED_AT_THE_EDGE, "no model", "{\"converse\": " + converse(10) + "}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "an unknown model", "{\"model\": \"gpt\", \"converse\": " + converse(10) + "}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "a model that is not a string", "{\"model\": 7, \"converse\": " + converse(10) + "}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "an unknown field", submission("\"deadline\": 60")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a request id with a slash", submission("\"requestId\": \"a/b\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a request id with a colon", submission("\"requestId\": \"a:b\"")),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "a request id of ..", submission("\"requestId\": \"..\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a 129-character request id", submission("\"requestId\": \"" + "a".repeat(129) + "\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "an empty request id", submission("\"requestId\": \"\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a numeric request id", submission("\"requestId\": 42")),
                body(Verdict.REFUSED_AT_THE_EDGE, "an unknown priority", submission("\"priority\": \"urgent\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a deadline of zero", submission("\"deadlineSeconds\": 0")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a fractional deadline", submission("\"deadlineSeconds\": 1.5")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a deadline in exponent form", submission("\"deadlineSeconds\": 1e3")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a deadline as text", submission("\"deadlineSeconds\": \"600\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a deadline above every model's", submission("\"deadlineSeconds\": 3601")),
                body(Verdict.REFUSED_AT_THE_EDGE, "an http callback", submission("\"callbackUrl\": \"http://hooks.example.com/s\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "a callback that is too long",
                        submission("\"callbackUrl\": \"https://hooks.example.com/" + "a".repeat(2030) + "\"")),
                body(Verdict.REFUSED_AT_THE_EDGE, "no Converse body", "{\"model\": \"nova-lite\"}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "a Converse body that is a list", "{\"model\": \"nova-lite\", \"converse\": []}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "no messages", "{\"model\": \"nova-lite\", \"converse\":"
                        + " {\"inferenceConfig\": {\"maxTokens\": 5}}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "an empty message list", "{\"model\": \"nova-lite\", \"converse\":"
                        + " {\"messages\": [], \"inferenceConfig\": {\"maxTokens\": 5}}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "no inferenceConfig", "{\"model\": \"nova-lite\", \"converse\": {" + MESSAGES + "}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "no maxTokens", "{\"model\": \"nova-lite\", \"converse\": {" + MESSAGES
                        + ", \"inferenceConfig\": {\"temperature\": 1}}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "maxTokens of zero", "{\"model\": \"nova-lite\", \"converse\": " + converse(0) + "}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "maxTokens as text", "{\"model\": \"nova-lite\", \"converse\": {" + MESSAGES
                        + ", \"inferenceConfig\": {\"maxTokens\": \"5\"}}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "maxTokens above every model's", "{\"model\": \"claude-sonnet\", \"converse\": "
                        + converse(64001) + "}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "a list instead of an object", "[]"),
                body(Verdict.REFUSED_AT_THE_EDGE, "two bodies", "{\"model\": \"nova-lite\", \"converse\": "
                        + converse(10) + ", \"messages\": {\"max_tokens\": 5, " + MESSAGES + "}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "a Messages body without max_tokens",
                        "{\"model\": \"nova-lite\", \"messages\": {" + MESSAGES + "}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "a Responses body without max_output_tokens",
                        "{\"model\": \"nova-lite\", \"responses\": {\"input\": \"hi\"}}"),
                body(Verdict.REFUSED_AT_THE_EDGE, "an unknown InvokeModel tier", submission("\"serviceTier\": \"cheap\"")),

                body(Verdict.REFUSED_BY_THE_FUNCTION, "maxTokens above this model's limit only",
                        "{\"model\": \"nova-lite\", \"converse\": " + converse(20000) + "}"),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "a body under another backend's key",
                        "{\"model\": \"nova-lite\", \"chatCompletions\": {" + MESSAGES + ", \"max_tokens\": 5}}"),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "the InvokeModel tier on a Converse model",
                        submission("\"serviceTier\": \"flex\"")),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "an unknown Converse field",
                        "{\"model\": \"nova-lite\", \"converse\": {" + MESSAGES + ", \"inferenceConfig\": {\"maxTokens\": 5},"
                        + " \"toolconfig\": {}}}"),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "a loopback callback", submission("\"callbackUrl\": \"https://127.0.0.1/s\"")),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "a private callback", submission("\"callbackUrl\": \"https://10.1.2.3/s\"")),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "a localhost callback", submission("\"callbackUrl\": \"https://localhost/s\"")),
                body(Verdict.REFUSED_BY_THE_FUNCTION, "a callback with credentials",
                        submission("\"callbackUrl\": \"https://user:secret@hooks.example.com/s\"")));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("bodies")
    void theEdgeAndTheFunctionAgree(Verdict expected, String description, String body) throws Exception {
        boolean parserAccepts = parserAccepts(body);
        List<String> schemaProblems = new ArrayList<>();
        validate(SCHEMA, JSON.readTree(body), "", schemaProblems);
        boolean schemaAccepts = schemaProblems.isEmpty();

        if (parserAccepts) {
            assertThat(schemaProblems).as("the edge must not refuse what the function accepts").isEmpty();
        }
        Verdict actual = !schemaAccepts ? Verdict.REFUSED_AT_THE_EDGE
                : parserAccepts ? Verdict.ACCEPTED : Verdict.REFUSED_BY_THE_FUNCTION;
        assertThat(actual).as(description + " " + schemaProblems).isEqualTo(expected);
        if (!schemaAccepts) {
            assertThat(parserAccepts).as("the function refuses it too").isFalse();
        }
    }

    @Test
    void theSchemaUsesOnlyKeywordsThisTestUnderstands() {
        List<String> unknown = new ArrayList<>();
        keywords(SCHEMA, unknown);
        assertThat(unknown).isEmpty();
    }

    private static Arguments body(Verdict verdict, String description, String json) {
        return Arguments.of(verdict, description, json);
    }

    private static String converse(long maxTokens) {
        return "{" + MESSAGES + ", \"inferenceConfig\": {\"maxTokens\": " + maxTokens + "}}";
    }

    private static String submission(String fields) {
        return "{\"model\": \"nova-lite\", " + fields + ", \"converse\": " + converse(10) + "}";
    }

    private static boolean parserAccepts(String body) {
        try {
            PARSER.parse(body.getBytes(StandardCharsets.UTF_8));
            return true;
        } catch (InvalidSubmissionException e) {
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    private static JsonNode synthesizedSchema() {
        Map<String, Map<String, Object>> models = SynthesizedStacks.development().template()
                .findResources("AWS::ApiGateway::Model");
        assertThat(models).hasSize(1);
        Map<String, Object> properties = (Map<String, Object>) models.values().iterator().next().get("Properties");
        return JSON.valueToTree(properties.get("Schema"));
    }

    private static final Set<String> KEYWORDS = Set.of("$schema", "title", "type", "required", "additionalProperties",
            "properties", "enum", "pattern", "minimum", "maximum", "minItems", "maxLength", "oneOf");

    private static void keywords(JsonNode schema, List<String> unknown) {
        for (Iterator<String> names = schema.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!KEYWORDS.contains(name)) {
                unknown.add(name);
            }
        }
        schema.path("properties").forEach(property -> keywords(property, unknown));
        schema.path("oneOf").forEach(choice -> keywords(choice, unknown));
    }

    /**
     * The draft-4 semantics of the keywords the schema uses, enough to compare it with the parser.
     * {@code pattern} is a search, as in JSON Schema; the schema's patterns are anchored.
     */
    private static void validate(JsonNode schema, JsonNode value, String path, List<String> problems) {
        if (schema.has("type") && !typeMatches(schema.get("type"), value)) {
            problems.add(path + ": type " + schema.get("type"));
            return;
        }
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode allowed : schema.get("enum")) {
                found |= allowed.equals(value);
            }
            if (!found) {
                problems.add(path + ": not in " + schema.get("enum"));
            }
        }
        if (value.isTextual()) {
            if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(value.asText()).find()) {
                problems.add(path + ": pattern " + schema.get("pattern"));
            }
            if (schema.has("maxLength") && value.asText().codePointCount(0, value.asText().length())
                    > schema.get("maxLength").asInt()) {
                problems.add(path + ": maxLength");
            }
        }
        if (value.isNumber()) {
            if (schema.has("minimum") && value.decimalValue().compareTo(schema.get("minimum").decimalValue()) < 0) {
                problems.add(path + ": minimum");
            }
            if (schema.has("maximum") && value.decimalValue().compareTo(schema.get("maximum").decimalValue()) > 0) {
                problems.add(path + ": maximum");
            }
        }
        if (value.isArray() && schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
            problems.add(path + ": minItems");
        }
        if (schema.has("oneOf")) {
            int matching = 0;
            for (JsonNode choice : schema.get("oneOf")) {
                List<String> theirs = new ArrayList<>();
                validate(choice, value, path, theirs);
                matching += theirs.isEmpty() ? 1 : 0;
            }
            if (matching != 1) {
                problems.add(path + ": matches " + matching + " of oneOf");
            }
        }
        if (value.isObject()) {
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    problems.add(path + "." + required.asText() + ": required");
                }
            }
            JsonNode properties = schema.path("properties");
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                if (properties.has(field.getKey())) {
                    validate(properties.get(field.getKey()), field.getValue(), path + "." + field.getKey(), problems);
                } else if (schema.path("additionalProperties").isBoolean()
                        && !schema.get("additionalProperties").asBoolean()) {
                    problems.add(path + "." + field.getKey() + ": not allowed");
                }
            }
        }
    }

    private static boolean typeMatches(JsonNode type, JsonNode value) {
        if (type.isArray()) {
            for (JsonNode one : type) {
                if (typeMatches(one, value)) {
                    return true;
                }
            }
            return false;
        }
        return switch (type.asText()) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            default -> throw new IllegalArgumentException("unknown type " + type);
        };
    }
}
