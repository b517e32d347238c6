package dev.trafficshaper.simulator.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

/**
 * Bedrock Runtime's restJson1 surface: routes {@code /model/{modelId}/{operation}}, decodes the
 * body, answers with the operation's JSON or with an error in the shape the SDKs parse (status,
 * {@code x-amzn-ErrorType}, {@code {"message": ...}}). Signatures are never checked: any client
 * that signs with any credentials is served.
 */
final class BedrockHttpHandler implements HttpHandler {

    static final String STATS_PATH = "/sim/stats";

    private static final String JSON_TYPE = "application/json";
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final SimulatedBedrock bedrock;

    BedrockHttpHandler(SimulatedBedrock bedrock) {
        this.bedrock = bedrock;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = readBody(exchange.getRequestBody());
            try {
                route(exchange, body);
            } catch (BedrockFailure failure) {
                sendError(exchange, failure.error(), failure.getMessage());
            } catch (RuntimeException unexpected) {
                sendError(exchange, BedrockError.INTERNAL_SERVER, "Simulator error: " + unexpected);
            }
        }
    }

    private void route(HttpExchange exchange, byte[] body) throws IOException {
        String method = exchange.getRequestMethod();
        String[] segments = exchange.getRequestURI().getRawPath().split("/");
        if (method.equals("GET") && exchange.getRequestURI().getPath().equals(STATS_PATH)) {
            send(exchange, 200, stats(), null);
            return;
        }
        if (!method.equals("POST") || segments.length != 4 || !segments[0].isEmpty() || !segments[1].equals("model")) {
            throw new BedrockFailure(BedrockError.UNKNOWN_OPERATION, "No operation at " + method + " "
                    + exchange.getRequestURI().getPath());
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

    private void converse(HttpExchange exchange, String modelId, byte[] body) throws IOException {
        SimulatedModel model = bedrock.resolve(modelId);
        SimulationHooks hooks = SimulationHooks.from(exchange.getRequestHeaders());
        Inference inference = ConverseCodec.readRequest(Json.readObject(body));
        Completion completion = bedrock.complete(model, inference, hooks);
        send(exchange, 200, ConverseCodec.writeResponse(completion), null);
    }

    private void invokeModel(HttpExchange exchange, String modelId, byte[] body) throws IOException {
        SimulatedModel model = bedrock.resolve(modelId);
        SimulationHooks hooks = SimulationHooks.from(exchange.getRequestHeaders());
        JsonNode json = Json.readObject(body);
        NativeFormat format = NativeFormat.detect(json, model.config().modelId());
        Completion completion = bedrock.complete(model, format.read(json), hooks);
        Headers headers = new Headers();
        headers.set("X-Amzn-Bedrock-Input-Token-Count", Long.toString(completion.inputTokens()));
        headers.set("X-Amzn-Bedrock-Output-Token-Count", Long.toString(completion.outputTokens()));
        headers.set("X-Amzn-Bedrock-Invocation-Latency", Long.toString(completion.latencyMillis()));
        if (completion.cacheReadTokens() > 0 || completion.cacheWriteTokens() > 0) {
            headers.set("X-Amzn-Bedrock-Cache-Read-Input-Token-Count", Long.toString(completion.cacheReadTokens()));
            headers.set("X-Amzn-Bedrock-Cache-Write-Input-Token-Count", Long.toString(completion.cacheWriteTokens()));
        }
        send(exchange, 200, format.write(completion, model.config().modelId()), headers);
    }

    private void countTokens(HttpExchange exchange, String modelId, byte[] body) throws IOException {
        SimulatedModel model = bedrock.resolve(modelId);
        SimulationHooks hooks = SimulationHooks.from(exchange.getRequestHeaders());
        JsonNode input = Json.readObject(body).path("input");
        Prompt prompt;
        if (input.has("converse")) {
            prompt = ConverseCodec.readPrompt(input.get("converse"));
        } else if (input.has("invokeModel")) {
            JsonNode nativeBody = Json.readObject(decodeBlob(input.get("invokeModel").path("body")));
            prompt = NativeFormat.detect(nativeBody, model.config().modelId()).read(nativeBody).prompt();
        } else {
            throw BedrockFailure.validation("input: exactly one of 'converse' or 'invokeModel' is required");
        }
        ObjectNode response = JSON.objectNode().put("inputTokens", bedrock.countTokens(model, prompt, hooks));
        send(exchange, 200, response, null);
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

    private static void sendError(HttpExchange exchange, BedrockError error, String message) throws IOException {
        Headers headers = new Headers();
        headers.set("x-amzn-ErrorType", error.code());
        send(exchange, error.status(), JSON.objectNode().put("message", message), headers);
    }

    private static void send(HttpExchange exchange, int status, JsonNode body, Headers extra) throws IOException {
        byte[] bytes = Json.write(body);
        Headers headers = exchange.getResponseHeaders();
        headers.set("Content-Type", JSON_TYPE);
        headers.set("x-amzn-RequestId", UUID.randomUUID().toString());
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
