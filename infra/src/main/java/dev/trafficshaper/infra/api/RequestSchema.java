package dev.trafficshaper.infra.api;

import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.request.Identifiers;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.services.apigateway.JsonSchema;
import software.amazon.awscdk.services.apigateway.JsonSchemaType;
import software.amazon.awscdk.services.apigateway.JsonSchemaVersion;

/**
 * The JSON schema (draft 4) API Gateway checks {@code POST /v1/requests} against before anything
 * runs. It mirrors the Submit function's {@code SubmissionParser} field by field, so the edge
 * never refuses a body the function would accept and refuses early what the function would
 * refuse for a reason the schema can see: a missing or unknown field, a wrong type, an unknown
 * model, a priority other than {@code interactive}/{@code bulk}, a request id outside
 * {@code [A-Za-z0-9._:-]{1,128}}, a callback that is not https, an empty message list or a
 * missing {@code maxTokens}.
 *
 * <p>What only the function checks: limits per model (the schema knows the largest deadline and
 * {@code maxTokens} of any model), the estimated input size, and callback hosts that are private,
 * loopback or link-local. Like the parser, the schema treats an explicit {@code null} as an
 * absent optional field and leaves the Converse body beyond {@code messages} and
 * {@code inferenceConfig.maxTokens} to Bedrock.
 */
public final class RequestSchema {

    public static final String REQUEST_ID_PATTERN = "^[A-Za-z0-9._:-]{1," + Identifiers.MAX_LENGTH + "}$";
    public static final String PRIORITY_PATTERN = "^(interactive|bulk)$";
    /** https, in any letter case (URI schemes are case-insensitive), then no white space. */
    public static final String CALLBACK_URL_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]://[^\\s]+$";
    public static final int MAX_CALLBACK_URL = CallbackUrlPolicy.MAX_LENGTH;

    private RequestSchema() {
    }

    public static JsonSchema forModels(ModelsConfiguration models) {
        return JsonSchema.builder()
                .schema(JsonSchemaVersion.DRAFT4)
                .title("SubmitRequest")
                .type(JsonSchemaType.OBJECT)
                .required(List.of("model", "converse"))
                .additionalProperties(false)
                .properties(Map.of(
                        "requestId", JsonSchema.builder()
                                .type(optional(JsonSchemaType.STRING)).pattern(REQUEST_ID_PATTERN).build(),
                        "model", JsonSchema.builder()
                                .type(JsonSchemaType.STRING).enumValue(List.copyOf(models.modelKeys())).build(),
                        "priority", JsonSchema.builder()
                                .type(optional(JsonSchemaType.STRING)).pattern(PRIORITY_PATTERN).build(),
                        "deadlineSeconds", JsonSchema.builder()
                                .type(optional(JsonSchemaType.INTEGER)).minimum(1)
                                .maximum(models.longestDeadlineSeconds()).build(),
                        "callbackUrl", JsonSchema.builder()
                                .type(optional(JsonSchemaType.STRING)).pattern(CALLBACK_URL_PATTERN)
                                .maxLength(MAX_CALLBACK_URL).build(),
                        "converse", converse(models)))
                .build();
    }

    private static JsonSchema converse(ModelsConfiguration models) {
        return JsonSchema.builder()
                .type(JsonSchemaType.OBJECT)
                .required(List.of("messages", "inferenceConfig"))
                .properties(Map.of(
                        "messages", JsonSchema.builder()
                                .type(JsonSchemaType.ARRAY).minItems(1).build(),
                        "inferenceConfig", JsonSchema.builder()
                                .type(JsonSchemaType.OBJECT)
                                .required(List.of("maxTokens"))
                                .properties(Map.of("maxTokens", JsonSchema.builder()
                                        .type(JsonSchemaType.INTEGER).minimum(1)
                                        .maximum(models.largestMaxTokens()).build()))
                                .build()))
                .build();
    }

    /** An optional field: absent, {@code null}, or of the given type. */
    private static List<JsonSchemaType> optional(JsonSchemaType type) {
        return List.of(type, JsonSchemaType.NULL);
    }
}
