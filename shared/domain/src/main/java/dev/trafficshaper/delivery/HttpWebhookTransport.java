package dev.trafficshaper.delivery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Webhooks over the JDK HTTP client; never follows redirects (a redirect could lead inside). */
public final class HttpWebhookTransport implements WebhookTransport {

    private final HttpClient http;
    private final Duration timeout;

    public HttpWebhookTransport(Duration timeout) {
        this.http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(timeout).build();
        this.timeout = timeout;
    }

    @Override
    public int post(URI target, Map<String, String> headers, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
