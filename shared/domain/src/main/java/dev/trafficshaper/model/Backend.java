package dev.trafficshaper.model;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which Bedrock API serves a model, and so which request shape callers send for it. The shaper
 * passes that shape through unchanged; the backend decides where it goes, how it is signed, where
 * usage is read and how errors are sorted.
 */
public enum Backend {
    /** bedrock-runtime Converse: one request shape for every model that supports it. */
    CONVERSE("converse", "converse", Endpoint.RUNTIME),
    /** bedrock-runtime InvokeModel with the model's native body (Anthropic Messages, Nova, Llama...). */
    INVOKE_MODEL("invoke-model", "invokeModel", Endpoint.RUNTIME),
    /** bedrock-mantle's OpenAI Chat Completions API. */
    MANTLE_CHAT_COMPLETIONS("mantle-chat-completions", "chatCompletions", Endpoint.MANTLE),
    /** bedrock-mantle's OpenAI Responses API. */
    MANTLE_RESPONSES("mantle-responses", "responses", Endpoint.MANTLE),
    /** bedrock-mantle's Anthropic Messages API. */
    MANTLE_MESSAGES("mantle-messages", "messages", Endpoint.MANTLE);

    /** The two Bedrock inference endpoints; each meters its own quotas. */
    public enum Endpoint {
        /** {@code bedrock-runtime.{region}.amazonaws.com}, SigV4 service name {@code bedrock}. */
        RUNTIME("bedrock"),
        /** {@code bedrock-mantle.{region}.api.aws}, SigV4 service name {@code bedrock-mantle}. */
        MANTLE("bedrock-mantle");

        private final String signingName;

        Endpoint(String signingName) {
            this.signingName = signingName;
        }

        /** The service name in the SigV4 credential scope. */
        public String signingName() {
            return signingName;
        }
    }

    private final String wireName;
    private final String bodyKey;
    private final Endpoint endpoint;

    Backend(String wireName, String bodyKey, Endpoint endpoint) {
        this.wireName = wireName;
        this.bodyKey = bodyKey;
        this.endpoint = endpoint;
    }

    /** The name in the models file, e.g. {@code mantle-messages}. */
    public String wireName() {
        return wireName;
    }

    /** The key of {@code POST /v1/requests} that carries this backend's body, e.g. {@code chatCompletions}. */
    public String bodyKey() {
        return bodyKey;
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    public boolean isMantle() {
        return endpoint == Endpoint.MANTLE;
    }

    public static Backend fromWireName(String name) {
        for (Backend backend : values()) {
            if (backend.wireName.equals(name)) {
                return backend;
            }
        }
        throw new IllegalArgumentException("unknown backend '" + name + "': expected one of " + wireNames());
    }

    /** The backend whose body travels under {@code key}, if any. */
    public static java.util.Optional<Backend> fromBodyKey(String key) {
        return Arrays.stream(values()).filter(b -> b.bodyKey.equals(key)).findFirst();
    }

    public static String wireNames() {
        return Arrays.stream(values()).map(Backend::wireName).collect(Collectors.joining(", "));
    }
}
