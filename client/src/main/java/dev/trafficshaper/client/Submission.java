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
 * One request to submit: the model key, the Bedrock Converse request body, and how the shaper
 * should treat it. Immutable; build with {@link #builder()} or {@link #text(String, String, int)}.
 *
 * <p>Give a {@code requestId} when a submission may be sent more than once (after a timeout, or
 * from a retried job): posting the same id again returns the original request instead of queuing
 * a second one. Without one the shaper assigns an id, and a repeated post is a new request.
 *
 * <p>The shaper checks the content (known model, deadline within the model's maximum, the Converse
 * body's shape and {@code maxTokens} limit); {@link #builder()} checks only what the client itself
 * needs.
 */
public final class Submission {

    private final String requestId;
    private final String model;
    private final Priority priority;
    private final Long deadlineSeconds;
    private final URI callbackUrl;
    private final ObjectNode converse;

    private Submission(Builder builder) {
        this.requestId = builder.requestId;
        this.model = builder.model;
        this.priority = builder.priority;
        this.deadlineSeconds = builder.deadlineSeconds;
        this.callbackUrl = builder.callbackUrl;
        this.converse = builder.converse.deepCopy();
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
        Objects.requireNonNull(prompt, "prompt");
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, was " + maxTokens);
        }
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
        builder.converse = converse;
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

    /** A copy of the Converse request body. */
    public ObjectNode converse() {
        return converse.deepCopy();
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
        body.set("converse", converse);
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
        private ObjectNode converse;

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
            Objects.requireNonNull(converseJson, "converseJson");
            try {
                return converse(Json.MAPPER.readTree(converseJson));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("converse is not valid JSON: " + e.getOriginalMessage(), e);
            }
        }

        /** The Converse request body; it must be an object. It is copied. */
        public Builder converse(JsonNode converse) {
            if (converse == null || !converse.isObject()) {
                throw new IllegalArgumentException("converse must be a JSON object");
            }
            this.converse = ((ObjectNode) converse).deepCopy();
            return this;
        }

        public Submission build() {
            if (model == null || model.isBlank()) {
                throw new IllegalArgumentException("model is required");
            }
            if (converse == null) {
                throw new IllegalArgumentException("converse is required");
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
