package dev.trafficshaper.infra.api;

import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.submission.RequestIds;
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
 * {@code [A-Za-z0-9._~-]{1,128}}, a callback that is not https, no body or more than one of the
 * five body keys ({@code converse}, {@code invokeModel}, {@code chatCompletions},
 * {@code responses}, {@code messages}), and within the body an empty message list or a missing
 * output limit where the shape has only one name for it.
 *
 * <p>What only the function checks: limits per model (the schema knows the largest deadline and
 * {@code maxTokens} of any model), the estimated input size, and callback hosts that are private,
 * loopback or link-local, which body key the model's backend takes, the shape's own fields, its
 * tier. Like the parser, the schema treats an explicit {@code null} as an absent optional field.
 */
public final class RequestSchema {

    /** {@link RequestIds}: unreserved URL characters; the function also refuses {@code .} and {@code ..}. */
    public static final String REQUEST_ID_PATTERN = "^[A-Za-z0-9._~-]{1," + RequestIds.MAX_LENGTH + "}$";
    public static final String PRIORITY_PATTERN = "^(interactive|bulk)$";
    /** InvokeModel's tier header, at the top level (the other shapes name it in their body). */
    public static final String SERVICE_TIER_PATTERN = "^(default|priority|flex|reserved)$";
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
                .required(List.of("model"))
                .additionalProperties(false)
                .oneOf(List.of(exactly("converse"), exactly("invokeModel"), exactly("chatCompletions"),
                        exactly("responses"), exactly("messages")))
                .properties(Map.ofEntries(
                        Map.entry("serviceTier", JsonSchema.builder()
                                .type(optional(JsonSchemaType.STRING)).pattern(SERVICE_TIER_PATTERN).build()),
                        Map.entry("invokeModel", JsonSchema.builder().type(JsonSchemaType.OBJECT).build()),
                        Map.entry("chatCompletions", withList(List.of("messages"), "messages")),
                        Map.entry("responses", JsonSchema.builder().type(JsonSchemaType.OBJECT)
                                .required(List.of("input", "max_output_tokens"))
                                .properties(Map.of("max_output_tokens", outputLimit(models))).build()),
                        Map.entry("messages", JsonSchema.builder().type(JsonSchemaType.OBJECT)
                                .required(List.of("messages", "max_tokens"))
                                .properties(Map.of("messages", nonEmptyList(), "max_tokens", outputLimit(models)))
                                .build()),
                        Map.entry("requestId", JsonSchema.builder()
                                .type(optional(JsonSchemaType.STRING)).pattern(REQUEST_ID_PATTERN).build()),
                        Map.entry("model", JsonSchema.builder()
                                .type(JsonSchemaType.STRING).enumValue(List.copyOf(models.modelKeys())).build()),
                        Map.entry("priority", JsonSchema.builder()
                                .type(optional(JsonSchemaType.STRING)).pattern(PRIORITY_PATTERN).build()),
                        Map.entry("deadlineSeconds", JsonSchema.builder()
                                .type(optional(JsonSchemaType.INTEGER)).minimum(1)
                                .maximum(models.longestDeadlineSeconds()).build()),
                        Map.entry("callbackUrl", JsonSchema.builder()
                                .type(optional(JsonSchemaType.STRING)).pattern(CALLBACK_URL_PATTERN)
                                .maxLength(MAX_CALLBACK_URL).build()),
                        Map.entry("converse", converse(models))))
                .build();
    }

    /** The body is under {@code key}; {@code properties} describes it when present. */
    private static JsonSchema exactly(String key) {
        return JsonSchema.builder().required(List.of(key)).build();
    }

    private static JsonSchema withList(List<String> required, String list) {
        return JsonSchema.builder().type(JsonSchemaType.OBJECT).required(required)
                .properties(Map.of(list, nonEmptyList())).build();
    }

    private static JsonSchema nonEmptyList() {
        return JsonSchema.builder().type(JsonSchemaType.ARRAY).minItems(1).build();
    }

    private static JsonSchema outputLimit(ModelsConfiguration models) {
        return JsonSchema.builder().type(JsonSchemaType.INTEGER).minimum(1).maximum(models.largestMaxTokens()).build();
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
