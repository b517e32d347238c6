package dev.trafficshaper.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One request to submit: the model key, the request body in the shape of the model's backend
 * ({@link BodyApi}: Converse, a native InvokeModel body, Chat Completions, Responses or Anthropic
 * Messages), and how the shaper should treat it. The shaper sends the body to Bedrock unchanged.
 * Immutable; build with {@link #builder()} or a typed factory: {@link #text}, {@link #converse},
 * {@link #invokeModel}, {@link #chatCompletions}, {@link #responses}, {@link #messages}, and the
 * one-turn helpers {@link #chatCompletionsText}, {@link #responsesText}, {@link #messagesText},
 * {@link #anthropicInvokeText}.
 *
 * <p>Give a {@code requestId} when a submission may be sent more than once (after a timeout, or
 * from a retried job): posting the same id again returns the original request instead of queuing
 * a second one. Without one the shaper assigns an id, and a repeated post is a new request.
 *
 * <p>The shaper checks the content (known model, deadline within the model's maximum, the body's
 * shape, its output limit and service tier); {@link #builder()} checks only what the client itself
 * needs.
 */
public final class Submission {

    private final String requestId;
    private final String model;
    private final Priority priority;
    private final Long deadlineSeconds;
    private final URI callbackUrl;
    private final BodyApi api;
    private final ObjectNode body;
    private final String serviceTier;

    private Submission(Builder builder) {
        this.requestId = builder.requestId;
        this.model = builder.model;
        this.priority = builder.priority;
        this.deadlineSeconds = builder.deadlineSeconds;
        this.callbackUrl = builder.callbackUrl;
        this.api = builder.api;
        this.body = builder.body.deepCopy();
        this.serviceTier = builder.serviceTier;
    }

    /** A Converse request body for {@code model}. */
    public static Submission converse(String model, JsonNode body) {
        return builder().model(model).converse(body).build();
    }

    /** A native InvokeModel body (Anthropic with {@code anthropic_version}, Nova, Llama...) for {@code model}. */
    public static Submission invokeModel(String model, JsonNode body) {
        return builder().model(model).invokeModel(body).build();
    }

    /** An OpenAI Chat Completions body; {@code model} in it may be left out, the shaper names the model. */
    public static Submission chatCompletions(String model, JsonNode body) {
        return builder().model(model).chatCompletions(body).build();
    }

    /** An OpenAI Responses body. */
    public static Submission responses(String model, JsonNode body) {
        return builder().model(model).responses(body).build();
    }

    /** An Anthropic Messages body for bedrock-mantle. */
    public static Submission messages(String model, JsonNode body) {
        return builder().model(model).messages(body).build();
    }

    /** One user turn for Chat Completions: {@code {"messages":[...], "max_completion_tokens": n}}. */
    public static Submission chatCompletionsText(String model, String prompt, int maxTokens) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.putArray("messages").addObject().put("role", "user").put("content", requireText(prompt));
        body.put("max_completion_tokens", positive(maxTokens));
        return chatCompletions(model, body);
    }

    /** One user turn for Responses: {@code {"input": prompt, "max_output_tokens": n}}. */
    public static Submission responsesText(String model, String prompt, int maxTokens) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("input", requireText(prompt));
        body.put("max_output_tokens", positive(maxTokens));
        return responses(model, body);
    }

    /** One user turn for Anthropic Messages on bedrock-mantle. */
    public static Submission messagesText(String model, String prompt, int maxTokens) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("max_tokens", positive(maxTokens));
        body.putArray("messages").addObject().put("role", "user").put("content", requireText(prompt));
        return messages(model, body);
    }

    /** One user turn as Anthropic's native InvokeModel body ({@code anthropic_version: bedrock-2023-05-31}). */
    public static Submission anthropicInvokeText(String model, String prompt, int maxTokens) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("anthropic_version", "bedrock-2023-05-31");
        body.put("max_tokens", positive(maxTokens));
        body.putArray("messages").addObject().put("role", "user").put("content", requireText(prompt));
        return invokeModel(model, body);
    }

    private static String requireText(String prompt) {
        return Objects.requireNonNull(prompt, "prompt");
    }

    private static int positive(int maxTokens) {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, was " + maxTokens);
        }
        return maxTokens;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A single user turn of text, with the output capped at {@code maxTokens}:
     * {@code {"messages":[{"role":"user","content":[{"text":prompt}]}],"inferenceConfig":{"maxTokens":maxTokens}}}.
     * Use {@link #toBuilder()} to set a priority, deadline or id.
     */
    public static Submission text(String model, String prompt, int maxTokens) {
        requireText(prompt);
        positive(maxTokens);
        ObjectNode converse = Json.MAPPER.createObjectNode();
        ArrayNode content = converse.putArray("messages").addObject().put("role", "user").putArray("content");
        content.addObject().put("text", prompt);
        converse.putObject("inferenceConfig").put("maxTokens", maxTokens);
        return builder().model(model).converse(converse).build();
    }

    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.requestId = requestId;
        builder.model = model;
        builder.priority = priority;
        builder.deadlineSeconds = deadlineSeconds;
        builder.callbackUrl = callbackUrl;
        builder.api = api;
        builder.body = body;
        builder.serviceTier = serviceTier;
        return builder;
    }

    public Optional<String> requestId() {
        return Optional.ofNullable(requestId);
    }

    public String model() {
        return model;
    }

    public Optional<Priority> priority() {
        return Optional.ofNullable(priority);
    }

    public OptionalLong deadlineSeconds() {
        return deadlineSeconds == null ? OptionalLong.empty() : OptionalLong.of(deadlineSeconds);
    }

    public Optional<URI> callbackUrl() {
        return Optional.ofNullable(callbackUrl);
    }

    /** The shape of the body, and so its key in the submission. */
    public BodyApi api() {
        return api;
    }

    /** A copy of the request body. */
    public ObjectNode body() {
        return body.deepCopy();
    }

    /**
     * A copy of the Converse request body.
     *
     * @throws IllegalStateException when the body is of another shape
     */
    public ObjectNode converse() {
        if (api != BodyApi.CONVERSE) {
            throw new IllegalStateException("this submission carries a " + api.key() + " body");
        }
        return body();
    }

    /** InvokeModel's service tier (sent as its header), if set. */
    public Optional<String> serviceTier() {
        return Optional.ofNullable(serviceTier);
    }

    /** The body of {@code POST /v1/requests}; optional fields that are not set are left out. */
    public String toJson() {
        ObjectNode body = Json.MAPPER.createObjectNode();
        if (requestId != null) {
            body.put("requestId", requestId);
        }
        body.put("model", model);
        if (priority != null) {
            body.put("priority", priority.wireName());
        }
        if (deadlineSeconds != null) {
            body.put("deadlineSeconds", deadlineSeconds);
        }
        if (callbackUrl != null) {
            body.put("callbackUrl", callbackUrl.toString());
        }
        if (serviceTier != null) {
            body.put("serviceTier", serviceTier);
        }
        body.set(api.key(), this.body);
        return Json.write(body);
    }

    @Override
    public String toString() {
        return "Submission" + toJson();
    }

    public static final class Builder {
        private String requestId;
        private String model;
        private Priority priority;
        private Long deadlineSeconds;
        private URI callbackUrl;
        private BodyApi api;
        private ObjectNode body;
        private String serviceTier;

        private Builder() {
        }

        /** Makes resubmission idempotent; the deployed API accepts {@code [A-Za-z0-9_-]{1,63}}. */
        public Builder requestId(String requestId) {
            this.requestId = requestId;
            return this;
        }

        /** The model key from the models file (not the Bedrock model id). */
        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /** Null leaves the choice to the shaper (its default lane). */
        public Builder priority(Priority priority) {
            this.priority = priority;
            return this;
        }

        /** Seconds from submission after which the result is no longer wanted. */
        public Builder deadlineSeconds(long deadlineSeconds) {
            this.deadlineSeconds = deadlineSeconds;
            return this;
        }

        /** Where the shaper posts the finished request (signed; see {@link WebhookVerifier}). */
        public Builder callbackUrl(URI callbackUrl) {
            this.callbackUrl = callbackUrl;
            return this;
        }

        public Builder callbackUrl(String callbackUrl) {
            return callbackUrl(callbackUrl == null ? null : URI.create(callbackUrl));
        }

        /** The Converse request body as JSON text; it must be an object. */
        public Builder converse(String converseJson) {
            return body(BodyApi.CONVERSE, converseJson);
        }

        /** The Converse request body; it must be an object. It is copied. */
        public Builder converse(JsonNode converse) {
            return body(BodyApi.CONVERSE, converse);
        }

        public Builder invokeModel(JsonNode nativeBody) {
            return body(BodyApi.INVOKE_MODEL, nativeBody);
        }

        public Builder chatCompletions(JsonNode body) {
            return body(BodyApi.CHAT_COMPLETIONS, body);
        }

        public Builder responses(JsonNode body) {
            return body(BodyApi.RESPONSES, body);
        }

        public Builder messages(JsonNode body) {
            return body(BodyApi.MESSAGES, body);
        }

        /** A body of the given shape as JSON text; it must be an object. */
        public Builder body(BodyApi api, String json) {
            Objects.requireNonNull(json, api.key() + "Json");
            try {
                return body(api, Json.MAPPER.readTree(json));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(api.key() + " is not valid JSON: " + e.getOriginalMessage(), e);
            }
        }

        /** A body of the given shape; it must be an object. It is copied. */
        public Builder body(BodyApi api, JsonNode body) {
            Objects.requireNonNull(api, "api");
            if (body == null || !body.isObject()) {
                throw new IllegalArgumentException(api.key() + " must be a JSON object");
            }
            this.api = api;
            this.body = ((ObjectNode) body).deepCopy();
            return this;
        }

        /**
         * InvokeModel's service tier ({@code default}, {@code priority}, {@code flex}), which
         * travels as a header; the other shapes name their tier in the body.
         */
        public Builder serviceTier(String serviceTier) {
            this.serviceTier = serviceTier;
            return this;
        }

        public Submission build() {
            if (model == null || model.isBlank()) {
                throw new IllegalArgumentException("model is required");
            }
            if (body == null) {
                throw new IllegalArgumentException("a body is required: converse, invokeModel, chatCompletions,"
                        + " responses or messages");
            }
            if (serviceTier != null && api != BodyApi.INVOKE_MODEL) {
                throw new IllegalArgumentException("serviceTier is InvokeModel's header; a " + api.key()
                        + " body names its tier itself");
            }
            if (requestId != null && requestId.isBlank()) {
                throw new IllegalArgumentException("requestId must not be blank when given");
            }
            if (deadlineSeconds != null && deadlineSeconds < 1) {
                throw new IllegalArgumentException("deadlineSeconds must be at least 1, was " + deadlineSeconds);
            }
            if (callbackUrl != null && !callbackUrl.isAbsolute()) {
                throw new IllegalArgumentException("callbackUrl must be an absolute URL, was " + callbackUrl);
            }
            return new Submission(this);
        }
    }
}
