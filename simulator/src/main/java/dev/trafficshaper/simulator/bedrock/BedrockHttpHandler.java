package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.submission.PromptContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * Bedrock's HTTP surfaces on one port.
 *
 * <ul>
 *   <li>bedrock-runtime's restJson1: {@code POST /model/{modelId}/{converse|invoke|count-tokens}};
 *       errors as status, {@code x-amzn-ErrorType} and {@code {"message": ...}}.</li>
 *   <li>bedrock-mantle: {@code POST /v1/chat/completions}, {@code /v1/responses} (also under
 *       {@code /openai/v1}) and {@code /anthropic/v1/messages} (also {@code /v1/messages}), the
 *       model named in the body; errors in the API's own style ({@link MantleErrors}).</li>
 * </ul>
 * Signatures and API keys are never checked: any client that signs with any credentials is served.
 */
final class BedrockHttpHandler implements HttpHandler {

    static final String STATS_PATH = "/sim/stats";

    private static final String JSON_TYPE = "application/json";
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final SimulatedBedrock bedrock;
    private final java.time.Clock clock;

    BedrockHttpHandler(SimulatedBedrock bedrock, java.time.Clock clock) {
        this.bedrock = bedrock;
        this.clock = clock;
    }

    /** Which error style an answer takes. */
    private enum Style { RUNTIME, OPENAI, ANTHROPIC }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = readBody(exchange.getRequestBody());
            String path = exchange.getRequestURI().getPath();
            Style style = path.endsWith("/messages") ? Style.ANTHROPIC
                    : path.endsWith("/chat/completions") || path.endsWith("/responses") ? Style.OPENAI : Style.RUNTIME;
            try {
                route(exchange, body);
            } catch (BedrockFailure failure) {
                sendError(exchange, style, failure.error(), failure.getMessage());
            } catch (RuntimeException unexpected) {
                sendError(exchange, style, BedrockError.INTERNAL_SERVER, "Simulator error: " + unexpected);
            }
        }
    }

    private void route(HttpExchange exchange, byte[] body) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        if (method.equals("GET") && path.equals(STATS_PATH)) {
            send(exchange, 200, stats(), null);
            return;
        }
        if (method.equals("POST")) {
            switch (path) {
                case "/v1/chat/completions", "/openai/v1/chat/completions" -> {
                    mantle(exchange, body, Backend.MANTLE_CHAT_COMPLETIONS, MantleCodec::readChatCompletions,
                            (completion, model) -> MantleCodec.writeChatCompletion(completion, model, seconds()));
                    return;
                }
                case "/v1/responses", "/openai/v1/responses" -> {
                    mantle(exchange, body, Backend.MANTLE_RESPONSES, MantleCodec::readResponses,
                            (completion, model) -> MantleCodec.writeResponse(completion, model, seconds()));
                    return;
                }
                case "/anthropic/v1/messages", "/v1/messages" -> {
                    mantle(exchange, body, Backend.MANTLE_MESSAGES, MantleCodec::readMessages,
                            AnthropicCodec::writeResponse);
                    return;
                }
                default -> {
                }
            }
        }
        String[] segments = exchange.getRequestURI().getRawPath().split("/");
        if (!method.equals("POST") || segments.length != 4 || !segments[0].isEmpty() || !segments[1].equals("model")) {
            throw new BedrockFailure(BedrockError.UNKNOWN_OPERATION, "No operation at " + method + " " + path);
        }
        String modelId = decode(segments[2]);
        String operation = segments[3];
        switch (operation) {
            case "converse" -> converse(exchange, modelId, body);
            case "invoke" -> invokeModel(exchange, modelId, body);
            case "count-tokens" -> countTokens(exchange, modelId, body);
            case "converse-stream", "invoke-with-response-stream" -> throw BedrockFailure.validation(
                    "The Bedrock simulator does not stream; use Converse or InvokeModel.");
            default -> throw new BedrockFailure(BedrockError.UNKNOWN_OPERATION, "No operation '" + operation + "'");
        }
    }

    private void mantle(HttpExchange exchange, byte[] body, Backend api,
                        java.util.function.Function<JsonNode, Inference> reader,
                        BiFunction<Completion, String, ObjectNode> writer) throws IOException {
        JsonNode json = Json.readObject(body);
        String modelName = MantleCodec.model(json);
        MantleCodec.refuseStreaming(json);
        SimulatedModel model = bedrock.resolve(Backend.Endpoint.MANTLE, api, modelName);
        SimulationHooks hooks = SimulationHooks.from(exchange.getRequestHeaders());
        Completion completion = bedrock.complete(model, reader.apply(json), hooks);
        send(exchange, 200, writer.apply(completion, modelName), null);
    }

    private void converse(HttpExchange exchange, String modelId, byte[] body) throws IOException {
        SimulatedModel model = bedrock.resolve(Backend.Endpoint.RUNTIME, Backend.CONVERSE, modelId);
        SimulationHooks hooks = SimulationHooks.from(exchange.getRequestHeaders());
        Inference inference = ConverseCodec.readRequest(Json.readObject(body));
        Completion completion = bedrock.complete(model, inference, hooks);
        send(exchange, 200, ConverseCodec.writeResponse(completion), null);
    }

    private void invokeModel(HttpExchange exchange, String modelId, byte[] body) throws IOException {
        SimulatedModel model = bedrock.resolve(Backend.Endpoint.RUNTIME, Backend.INVOKE_MODEL, modelId);
        SimulationHooks hooks = SimulationHooks.from(exchange.getRequestHeaders());
        JsonNode json = Json.readObject(body);
        NativeFormat format = NativeFormat.of(model.config().nativeBody().orElse(null), json, model.config().modelId());
        Completion completion = bedrock.complete(model, format.read(json), hooks);
        Headers headers = new Headers();
        headers.set("X-Amzn-Bedrock-Input-Token-Count", Long.toString(completion.inputTokens()));
        headers.set("X-Amzn-Bedrock-Output-Token-Count", Long.toString(completion.outputTokens()));
        headers.set("X-Amzn-Bedrock-Invocation-Latency", Long.toString(completion.latencyMillis()));
        if (completion.cacheReadTokens() > 0 || completion.cacheWriteTokens() > 0) {
            headers.set("X-Amzn-Bedrock-Cache-Read-Input-Token-Count", Long.toString(completion.cacheReadTokens()));
            headers.set("X-Amzn-Bedrock-Cache-Write-Input-Token-Count", Long.toString(completion.cacheWriteTokens()));
        }
        String tier = exchange.getRequestHeaders().getFirst("X-Amzn-Bedrock-Service-Tier");
        if (tier != null) {
            headers.set("X-Amzn-Bedrock-Service-Tier", tier);
        }
        send(exchange, 200, format.write(completion, model.config().modelId()), headers);
    }

    private void countTokens(HttpExchange exchange, String modelId, byte[] body) throws IOException {
        SimulatedModel model = bedrock.resolve(Backend.Endpoint.RUNTIME, Backend.CONVERSE, modelId);
        SimulationHooks hooks = SimulationHooks.from(exchange.getRequestHeaders());
        JsonNode input = Json.readObject(body).path("input");
        PromptContent prompt;
        if (input.has("converse")) {
            prompt = ConverseCodec.readPrompt(input.get("converse"));
        } else if (input.has("invokeModel")) {
            JsonNode nativeBody = Json.readObject(decodeBlob(input.get("invokeModel").path("body")));
            prompt = NativeFormat.of(model.config().nativeBody().orElse(null), nativeBody, model.config().modelId())
                    .read(nativeBody).prompt();
        } else {
            throw BedrockFailure.validation("input: exactly one of 'converse' or 'invokeModel' is required");
        }
        ObjectNode response = JSON.objectNode().put("inputTokens", bedrock.countTokens(model, prompt, hooks));
        send(exchange, 200, response, null);
    }

    private long seconds() {
        return clock.millis() / 1000;
    }

    private JsonNode stats() {
        ObjectNode root = JSON.objectNode();
        ObjectNode models = root.putObject("models");
        var all = bedrock.stats();
        all.forEach(stats -> models.set(stats.key(), Json.MAPPER.valueToTree(stats)));
        ModelStats total = ModelStats.sum("total", all);
        ObjectNode totalNode = Json.MAPPER.valueToTree(total);
        totalNode.remove("key");
        totalNode.remove("modelId");
        root.set("total", totalNode);
        return root;
    }

    private static void sendError(HttpExchange exchange, Style style, BedrockError error, String message)
            throws IOException {
        Headers headers = new Headers();
        switch (style) {
            case RUNTIME -> {
                headers.set("x-amzn-ErrorType", error.code());
                send(exchange, error.status(), JSON.objectNode().put("message", message), headers);
            }
            case OPENAI -> send(exchange, MantleErrors.status(error), MantleErrors.openAi(error, message), null);
            case ANTHROPIC -> send(exchange, MantleErrors.status(error), MantleErrors.anthropic(error, message), null);
        }
    }

    private static void send(HttpExchange exchange, int status, JsonNode body, Headers extra) throws IOException {
        byte[] bytes = Json.write(body);
        Headers headers = exchange.getResponseHeaders();
        headers.set("Content-Type", JSON_TYPE);
        String requestId = UUID.randomUUID().toString();
        headers.set("x-amzn-RequestId", requestId);
        headers.set("request-id", requestId);
        if (extra != null) {
            extra.forEach((name, values) -> headers.put(name, values));
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static byte[] readBody(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    private static byte[] decodeBlob(JsonNode blob) {
        if (!blob.isTextual()) {
            throw BedrockFailure.validation("input.invokeModel.body: a base64 string is required");
        }
        try {
            return Base64.getDecoder().decode(blob.asText());
        } catch (IllegalArgumentException e) {
            throw BedrockFailure.validation("input.invokeModel.body: not valid base64");
        }
    }

    /** Percent-decodes one path segment; a '+' in a path is literal, unlike in a form. */
    private static String decode(String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw BedrockFailure.validation("model identifier is not properly encoded");
        }
    }
}
