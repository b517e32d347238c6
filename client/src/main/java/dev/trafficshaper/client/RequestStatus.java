package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where a request stands: still pending, succeeded with the model's response, or finished without
 * one. A failure is a normal value here, not an exception: {@link #httpStatus()} says which
 * ({@code 429} throttled, {@code 503} dependency error, {@code 504} deadline expired, {@code 400}
 * invalid, {@code 404} unknown or another tenant's id) and {@link #reason()} and {@link #detail()}
 * say why.
 *
 * <p>The typed accessors read the documented fields and tolerate missing or unknown ones;
 * {@link #json()} and {@link #rawBody()} give everything the API sent.
 */
public final class RequestStatus {

    /** The client's label for a request that has not finished, when the body names no state. */
    public static final String PENDING = "PENDING";
    public static final String NOT_FOUND = "NOT_FOUND";

    /** Where the request is in its life, from the client's point of view. */
    public enum Outcome {
        /** Queued, admitted or being invoked: ask again later. */
        PENDING,
        /** Finished with a Converse response. */
        SUCCEEDED,
        /** Finished without a response (failed, expired, rejected), or unknown. Final. */
        FAILED
    }

    private static final Set<String> FAILED_STATES = Set.of("FAILED", "EXPIRED", "REJECTED", NOT_FOUND);

    /** The HTTP status for each failure reason, as the server's lifecycle maps them. */
    private static final Map<String, Integer> HTTP_STATUS_BY_REASON = Map.of(
            "THROTTLED", 429,
            "DEPENDENCY_ERROR", 503,
            "DEADLINE_EXPIRED", 504,
            "MODEL_TIMEOUT", 504,
            "INVALID_REQUEST", 400,
            "ABORTED", 503);

    private final String requestId;
    private final String status;
    private final Outcome outcome;
    private final int httpStatus;
    private final Duration retryAfter;
    private final JsonNode json;
    private final String rawBody;

    private RequestStatus(String requestId, String status, Outcome outcome, int httpStatus, Duration retryAfter,
            JsonNode json, String rawBody) {
        this.requestId = requestId;
        this.status = status;
        this.outcome = outcome;
        this.httpStatus = httpStatus;
        this.retryAfter = retryAfter;
        this.json = json;
        this.rawBody = rawBody;
    }

    /**
     * The status a {@code GET /v1/requests/{id}} answered, for one of the statuses the contract
     * defines: 202 pending, 200 succeeded, anything else a final failure.
     */
    static RequestStatus fromResponse(String requestId, int httpStatus, Duration retryAfter, String body) {
        JsonNode json = Json.parseLeniently(body);
        Outcome outcome = httpStatus == 202 ? Outcome.PENDING : httpStatus == 200 ? Outcome.SUCCEEDED : Outcome.FAILED;
        String status = Json.text(json, "status");
        if (status == null) {
            status = switch (outcome) {
                case PENDING -> PENDING;
                case SUCCEEDED -> "SUCCEEDED";
                case FAILED -> httpStatus == 404 ? NOT_FOUND : "FAILED";
            };
        }
        String id = Json.text(json, "requestId");
        return new RequestStatus(id == null ? requestId : id, status, outcome, httpStatus,
                outcome == Outcome.PENDING ? retryAfter : null, json, body == null ? "" : body);
    }

    /**
     * Reads the body of a webhook call (the same body as the {@code GET}), after
     * {@link WebhookVerifier} has accepted its signature. The HTTP status is the body's
     * {@code httpStatus} if present, else derived from {@code status} and {@code reason}.
     *
     * @throws IllegalArgumentException if the body is not a JSON object with a {@code requestId}
     *                                  and a {@code status}
     */
    public static RequestStatus fromWebhook(String rawBody) {
        Objects.requireNonNull(rawBody, "rawBody");
        JsonNode json = Json.parseLeniently(rawBody);
        String requestId = Json.text(json, "requestId");
        String status = Json.text(json, "status");
        if (!json.isObject() || requestId == null || status == null) {
            throw new IllegalArgumentException("a webhook body is a JSON object with requestId and status");
        }
        String state = status.toUpperCase(Locale.ROOT);
        Outcome outcome = state.equals("SUCCEEDED") ? Outcome.SUCCEEDED
                : FAILED_STATES.contains(state) ? Outcome.FAILED : Outcome.PENDING;
        int httpStatus = json.path("httpStatus").isInt() ? json.path("httpStatus").asInt()
                : httpStatusOf(outcome, state, Json.text(json, "reason"));
        return new RequestStatus(requestId, status, outcome, httpStatus, null, json, rawBody);
    }

    private static int httpStatusOf(Outcome outcome, String state, String reason) {
        if (outcome == Outcome.SUCCEEDED) {
            return 200;
        }
        if (outcome == Outcome.PENDING) {
            return 202;
        }
        if (state.equals("EXPIRED")) {
            return 504;
        }
        if (state.equals(NOT_FOUND)) {
            return 404;
        }
        String key = reason == null ? "" : reason.strip().toUpperCase(Locale.ROOT).replace('-', '_').replace(' ', '_');
        return HTTP_STATUS_BY_REASON.getOrDefault(key, 503);
    }

    public String requestId() {
        return requestId;
    }

    /**
     * The request's state as the API named it ({@code QUEUED}, {@code ADMITTED}, {@code INVOKING},
     * {@code SUCCEEDED}, {@code FAILED}, {@code EXPIRED}, {@code REJECTED}); when the body names
     * none, {@link #PENDING} for 202, {@code SUCCEEDED} for 200, {@link #NOT_FOUND} for 404 and
     * {@code FAILED} otherwise.
     */
    public String status() {
        return status;
    }

    public Outcome outcome() {
        return outcome;
    }

    public boolean isPending() {
        return outcome == Outcome.PENDING;
    }

    public boolean isSucceeded() {
        return outcome == Outcome.SUCCEEDED;
    }

    public boolean isFailed() {
        return outcome == Outcome.FAILED;
    }

    /** Final: asking again gives the same answer. */
    public boolean isTerminal() {
        return outcome != Outcome.PENDING;
    }

    /** {@code 202} pending, {@code 200} succeeded, or the failure's status. */
    public int httpStatus() {
        return httpStatus;
    }

    /** Why it failed ({@code reason}, or {@code error} for a request the API refused to look up). */
    public Optional<String> reason() {
        String reason = Json.text(json, "reason");
        return Optional.ofNullable(reason != null ? reason : Json.text(json, "error"));
    }

    /** A human-readable explanation, if the API gave one. */
    public Optional<String> detail() {
        String detail = Json.text(json, "detail");
        return Optional.ofNullable(detail != null ? detail : Json.text(json, "message"));
    }

    /** While pending: how long the API asked the client to wait ({@code Retry-After}), if it did. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** A copy of the model's response as Bedrock sent it (in the shape of the model's backend), when it succeeded. */
    public Optional<JsonNode> response() {
        JsonNode response = json.path("response");
        return response.isObject() ? Optional.of(response.deepCopy()) : Optional.empty();
    }

    /** Token usage ({@code usage}, else the Converse response's own {@code usage}), when reported. */
    public Optional<Usage> usage() {
        JsonNode usage = json.path("usage");
        if (!usage.isObject()) {
            usage = json.path("response").path("usage");
        }
        return usage.isObject() ? Optional.of(Usage.from(usage)) : Optional.empty();
    }

    /**
     * The answer's text, concatenated, when there is any, whatever the shape of the response:
     * Converse and Nova ({@code output.message.content[].text}), Anthropic Messages
     * ({@code content[]} of type {@code text}), Chat Completions ({@code choices[0].message.content}),
     * Responses ({@code output[].content[]} of type {@code output_text}), Llama ({@code generation}),
     * Titan ({@code results[].outputText}) and Mistral ({@code outputs[].text}).
     */
    public Optional<String> outputText() {
        JsonNode response = json.path("response");
        StringBuilder text = new StringBuilder();
        for (JsonNode block : response.path("output").path("message").path("content")) {
            text.append(block.path("text").asText(""));
        }
        for (JsonNode block : response.path("content")) {
            if ("text".equals(block.path("type").asText())) {
                text.append(block.path("text").asText(""));
            }
        }
        JsonNode choice = response.path("choices").path(0).path("message").path("content");
        if (choice.isTextual()) {
            text.append(choice.asText());
        }
        if (response.path("output").isArray()) {
            for (JsonNode item : response.path("output")) {
                for (JsonNode part : item.path("content")) {
                    if ("output_text".equals(part.path("type").asText())) {
                        text.append(part.path("text").asText(""));
                    }
                }
            }
        }
        if (response.path("generation").isTextual()) {
            text.append(response.path("generation").asText());
        }
        for (JsonNode result : response.path("results")) {
            text.append(result.path("outputText").asText(""));
        }
        for (JsonNode output : response.path("outputs")) {
            text.append(output.path("text").asText(""));
        }
        return text.length() > 0 ? Optional.of(text.toString()) : Optional.empty();
    }

    /** A tool the model asked to have called, with its arguments as a JSON object. */
    public record ToolUse(String id, String name, JsonNode input) {
    }

    /**
     * The tool calls in the answer, whatever its shape: Converse {@code toolUse} blocks, Anthropic
     * {@code tool_use} blocks, Chat Completions {@code tool_calls}, Responses {@code function_call}
     * items. Answer each with a follow-up request carrying its result under {@link ToolUse#id()}.
     */
    public java.util.List<ToolUse> toolUses() {
        JsonNode response = json.path("response");
        java.util.List<ToolUse> uses = new java.util.ArrayList<>();
        for (JsonNode block : response.path("output").path("message").path("content")) {
            JsonNode use = block.path("toolUse");
            if (use.isObject()) {
                uses.add(new ToolUse(use.path("toolUseId").asText(), use.path("name").asText(),
                        use.path("input").deepCopy()));
            }
        }
        for (JsonNode block : response.path("content")) {
            if ("tool_use".equals(block.path("type").asText())) {
                uses.add(new ToolUse(block.path("id").asText(), block.path("name").asText(),
                        block.path("input").deepCopy()));
            }
        }
        for (JsonNode call : response.path("choices").path(0).path("message").path("tool_calls")) {
            uses.add(new ToolUse(call.path("id").asText(), call.path("function").path("name").asText(),
                    Json.parseLeniently(call.path("function").path("arguments").asText("{}"))));
        }
        if (response.path("output").isArray()) {
            for (JsonNode item : response.path("output")) {
                if ("function_call".equals(item.path("type").asText())) {
                    uses.add(new ToolUse(item.path("call_id").asText(), item.path("name").asText(),
                            Json.parseLeniently(item.path("arguments").asText("{}"))));
                }
            }
        }
        return java.util.List.copyOf(uses);
    }

    /** A copy of the parsed body; a missing node when the body was empty or not JSON. */
    public JsonNode json() {
        return json.deepCopy();
    }

    /** The body exactly as received. */
    public String rawBody() {
        return rawBody;
    }

    @Override
    public String toString() {
        return "RequestStatus[" + requestId + " " + status + " (" + httpStatus + ")"
                + reason().map(r -> " " + r).orElse("") + "]";
    }
}
