package dev.trafficshaper.client;

import java.util.Map;

/**
 * Adds authentication to each request the client sends. The deployed API requires AWS SigV4
 * ({@code dev.trafficshaper.client.aws.AwsSigV4Signer}); the local server needs nothing
 * ({@link #none()}).
 *
 * <p>Called once per HTTP request, including each poll, on the calling thread or the client's
 * scheduler thread; it should not block for long. It must not return {@code Host} or
 * {@code Content-Length}, which the JDK sets and refuses to take from the caller.
 */
@FunctionalInterface
public interface RequestSigner {

    /** The headers to add to {@code request}, e.g. {@code Authorization} and {@code X-Amz-Date}. */
    Map<String, String> sign(SignableRequest request);

    /** Adds nothing: for the local server. */
    static RequestSigner none() {
        return request -> Map.of();
    }
}
