package dev.trafficshaper.infra.api;

import dev.trafficshaper.infra.config.ModelsConfiguration;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.services.apigateway.JsonSchema;
import software.amazon.awscdk.services.apigateway.JsonSchemaType;
import software.amazon.awscdk.services.apigateway.JsonSchemaVersion;

/**
 * The JSON schema API Gateway checks {@code POST /v1/requests} against before anything runs. It
 * knows the configured model keys and limits, so most bad requests are refused at the edge; the
 * Submit function checks the rest (per-model limits) with the same models file.
 */
public final class RequestSchema {

    /** Leaves room for the tenant prefix within the 80-character execution-name limit. */
    public static final String REQUEST_ID_PATTERN = "^[A-Za-z0-9_-]{1,63}$";
    public static final int MAX_CALLBACK_URL = 2_048;

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
                                .type(JsonSchemaType.STRING).pattern(REQUEST_ID_PATTERN).build(),
                        "model", JsonSchema.builder()
                                .type(JsonSchemaType.STRING).enumValue(List.copyOf(models.modelKeys())).build(),
                        "priority", JsonSchema.builder()
                                .type(JsonSchemaType.STRING).enumValue(List.of("interactive", "bulk")).build(),
                        "deadlineSeconds", JsonSchema.builder()
                                .type(JsonSchemaType.INTEGER).minimum(1)
                                .maximum(models.longestDeadlineSeconds()).build(),
                        "callbackUrl", JsonSchema.builder()
                                .type(JsonSchemaType.STRING).pattern("^https://[^\\s]+$")
                                .maxLength(MAX_CALLBACK_URL).build(),
                        "converse", converse(models)))
                .build();
    }

    private static JsonSchema converse(ModelsConfiguration models) {
        return JsonSchema.builder()
                .type(JsonSchemaType.OBJECT)
                .required(List.of("messages"))
                .properties(Map.of(
                        "messages", JsonSchema.builder()
                                .type(JsonSchemaType.ARRAY).minItems(1)
                                .items(JsonSchema.builder()
                                        .type(JsonSchemaType.OBJECT)
                                        .required(List.of("role", "content"))
                                        .properties(Map.of(
                                                "role", JsonSchema.builder().type(JsonSchemaType.STRING)
                                                        .enumValue(List.of("user", "assistant")).build(),
                                                "content", JsonSchema.builder().type(JsonSchemaType.ARRAY)
                                                        .minItems(1).build()))
                                        .build())
                                .build(),
                        "inferenceConfig", JsonSchema.builder()
                                .type(JsonSchemaType.OBJECT)
                                .properties(Map.of("maxTokens", JsonSchema.builder()
                                        .type(JsonSchemaType.INTEGER).minimum(1)
                                        .maximum(models.largestMaxTokens()).build()))
                                .build()))
                .build();
    }
}
