package dev.trafficshaper.delivery;

import java.net.URI;
import java.util.Map;

/** Sends one webhook POST; returns the HTTP status, or throws on a transport failure. */
public interface WebhookTransport {

    int post(URI target, Map<String, String> headers, String body) throws Exception;
}
