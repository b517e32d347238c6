/**
 * A small client for the shaper's asynchronous HTTP API: submit a Converse request, read or await
 * its result, list the configured models, and verify the signature of a webhook.
 *
 * <p>The package needs only the JDK's {@link java.net.http.HttpClient} and Jackson. Requests to the
 * deployed API, which uses IAM authorization, are signed by a {@link dev.trafficshaper.client.RequestSigner};
 * the SigV4 implementation lives in {@code dev.trafficshaper.client.aws} and is the only code that
 * needs the AWS SDK.
 */
package dev.trafficshaper.client;
