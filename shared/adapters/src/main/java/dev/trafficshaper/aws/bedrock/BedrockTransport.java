package dev.trafficshaper.aws.bedrock;

import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.threads.DaemonThreads;
import java.net.URI;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.endpoints.BedrockRuntimeEndpointParams;
import software.amazon.awssdk.services.bedrockruntime.endpoints.BedrockRuntimeEndpointProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Where and how the raw calls go, taken from a configured Bedrock Runtime client so that one
 * client configuration (region, credentials, endpoint override) serves every backend: the
 * bedrock-runtime endpoint the SDK resolves for the region, {@code bedrock-mantle.{region}.api.aws}
 * for the Mantle APIs, and with an endpoint override (a simulator) that endpoint for both.
 */
final class BedrockTransport {

    /** Bedrock API keys, as the AWS SDKs and CLI read them. */
    static final String BEARER_TOKEN_VARIABLE = "AWS_BEARER_TOKEN_BEDROCK";

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.factory("bedrock-call-timeout"));

    final URI runtimeEndpoint;
    final URI mantleEndpoint;
    final SignedHttp runtime;
    final SignedHttp mantle;
    final SignedHttp mantleWithApiKey;

    private BedrockTransport(URI runtimeEndpoint, URI mantleEndpoint, SignedHttp runtime, SignedHttp mantle,
                             SignedHttp mantleWithApiKey) {
        this.runtimeEndpoint = runtimeEndpoint;
        this.mantleEndpoint = mantleEndpoint;
        this.runtime = runtime;
        this.mantle = mantle;
        this.mantleWithApiKey = mantleWithApiKey;
    }

    static BedrockTransport of(BedrockRuntimeClient client, SdkHttpClient http, Supplier<String> bearerToken) {
        var config = client.serviceClientConfiguration();
        Region region = config.region();
        IdentityProvider<? extends AwsCredentialsIdentity> credentials = config.credentialsProvider();
        URI override = config.endpointOverride().orElse(null);
        URI runtimeEndpoint = override != null ? override : BedrockRuntimeEndpointProvider.defaultProvider()
                .resolveEndpoint(BedrockRuntimeEndpointParams.builder().region(region).build()).join().url();
        URI mantleEndpoint = override != null ? override
                : URI.create("https://bedrock-mantle." + region.id() + ".api.aws");
        return new BedrockTransport(runtimeEndpoint, mantleEndpoint,
                new SignedHttp(http, SignedHttp.sigV4(credentials, region.id(), "bedrock"), TIMER),
                new SignedHttp(http, SignedHttp.sigV4(credentials, region.id(), "bedrock-mantle"), TIMER),
                new SignedHttp(http, SignedHttp.bearer(bearerToken), TIMER));
    }

    /** The SDK's HTTP client with a socket timeout as long as the longest call; shorter calls are aborted. */
    static SdkHttpClient defaultHttpClient() {
        return UrlConnectionHttpClient.builder().socketTimeout(InvocationService.MAX_CALL)
                .connectionTimeout(java.time.Duration.ofSeconds(5)).build();
    }

    static Supplier<String> environmentBearerToken() {
        return () -> {
            String token = System.getenv(BEARER_TOKEN_VARIABLE);
            if (token == null || token.isBlank()) {
                throw new IllegalStateException(BEARER_TOKEN_VARIABLE + " is not set; a model with \"auth\": \"api-key\""
                        + " needs a Bedrock API key there");
            }
            return token.trim();
        };
    }
}
