package dev.trafficshaper.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The local server's API over plain JDK HTTP, as any caller would use it. */
final class Api {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One answer: status, headers and the body as JSON. */
    record Answer(int status, HttpResponse<String> raw) {

        JsonNode json() {
            try {
                return JSON.readTree(raw.body());
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + raw.body(), e);
            }
        }

        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    Api(URI base) {
        this.base = base;
    }

    Answer submit(String body) {
        return submit(body, null);
    }

    Answer submit(String body, String tenant) {
        return send(request("/v1/requests", tenant)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build());
    }

    Answer get(String path) {
        return get(path, null);
    }

    Answer get(String path, String tenant) {
        return send(request(path, tenant).GET().build());
    }

    Answer status(String requestId, String tenant) {
        return get("/v1/requests/" + requestId, tenant);
    }

    Answer send(HttpRequest request) {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpRequest.Builder request(String path, String tenant) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json");
        if (tenant != null) {
            builder.header(LocalServer.TENANT_HEADER, tenant);
        }
        return builder;
    }

    /** A valid submission body; {@code extraFields} is inserted as is, e.g. {@code "requestId":"a",}. */
    static String body(String model, String extraFields, String text, long maxTokens) {
        return "{" + extraFields + "\"model\":\"" + model + "\",\"converse\":{\"messages\":[{\"role\":\"user\","
                + "\"content\":[{\"text\":\"" + text + "\"}]}],\"inferenceConfig\":{\"maxTokens\":" + maxTokens + "}}}";
    }
}
