package dev.trafficshaper.client;

/**
 * The request shapes the shaper passes through, each under its key of {@code POST /v1/requests}.
 * Which one a model takes is its backend in the models file ({@code GET /v1/models} says it as
 * {@code bodyKey}).
 */
public enum BodyApi {
    /** Bedrock Converse (backend {@code converse}). */
    CONVERSE("converse"),
    /** The model's native InvokeModel body (backend {@code invoke-model}). */
    INVOKE_MODEL("invokeModel"),
    /** OpenAI Chat Completions on bedrock-mantle (backend {@code mantle-chat-completions}). */
    CHAT_COMPLETIONS("chatCompletions"),
    /** OpenAI Responses on bedrock-mantle (backend {@code mantle-responses}). */
    RESPONSES("responses"),
    /** Anthropic Messages on bedrock-mantle (backend {@code mantle-messages}). */
    MESSAGES("messages");

    private final String key;

    BodyApi(String key) {
        this.key = key;
    }

    /** The submission key, e.g. {@code chatCompletions}. */
    public String key() {
        return key;
    }
}
