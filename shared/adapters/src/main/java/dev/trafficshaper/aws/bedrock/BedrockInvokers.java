package dev.trafficshaper.aws.bedrock;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.bedrock.RejectionKind;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.BackendSettings;
import dev.trafficshaper.model.ModelConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;

/**
 * The {@link ModelInvoker} for every backend: each model's call goes to the invoker of its wire
 * shape, once. Nothing here retries: the SDK's default retries 429s and 5xx silently, which hides
 * throttles from the pacer and spends the deadline on blind backoff, so the Bedrock Runtime
 * client must be built {@link #withoutRetries}, and the raw calls (Converse and bedrock-mantle)
 * are made once by construction.
 */
public final class BedrockInvokers implements ModelInvoker {

    private final Map<Backend, ShapeInvoker> invokers;
    private final Map<Backend, ShapeInvoker> mantleApiKeyInvokers;

    private BedrockInvokers(Map<Backend, ShapeInvoker> invokers, Map<Backend, ShapeInvoker> mantleApiKeyInvokers) {
        this.invokers = invokers;
        this.mantleApiKeyInvokers = mantleApiKeyInvokers;
    }

    /**
     * Every backend through one configured client: its region, credentials and endpoint override
     * serve the raw calls too.
     *
     * @throws IllegalArgumentException if the client would retry failed calls
     */
    public static BedrockInvokers forRuntimeClient(BedrockRuntimeClient bedrock) {
        return create(bedrock, BedrockTransport.defaultHttpClient(), BedrockTransport.environmentBearerToken());
    }

    /** As {@link #forRuntimeClient}, with the HTTP client and the source of Bedrock API keys given. */
    public static BedrockInvokers create(BedrockRuntimeClient bedrock, SdkHttpClient http,
                                         Supplier<String> bearerToken) {
        if (bedrock == null) {
            throw new IllegalArgumentException("a Bedrock Runtime client is required");
        }
        int attempts = bedrock.serviceClientConfiguration().overrideConfiguration().retryStrategy()
                .map(RetryStrategy::maxAttempts)
                .orElse(Integer.MAX_VALUE);
        if (attempts != 1) {
            throw new IllegalArgumentException("the Bedrock Runtime client must make one attempt per call;"
                    + " build it with withoutRetries(...)");
        }
        BedrockTransport transport = BedrockTransport.of(bedrock, http, bearerToken);
        Map<Backend, ShapeInvoker> invokers = new EnumMap<>(Backend.class);
        Map<Backend, ShapeInvoker> apiKey = new EnumMap<>(Backend.class);
        invokers.put(Backend.CONVERSE, new ConverseInvoker(transport.runtime, transport.runtimeEndpoint));
        invokers.put(Backend.INVOKE_MODEL, new InvokeModelInvoker(bedrock));
        for (Backend backend : Backend.values()) {
            if (backend.isMantle()) {
                invokers.put(backend, MantleInvoker.of(backend, transport.mantle, transport.mantleEndpoint));
                apiKey.put(backend, MantleInvoker.of(backend, transport.mantleWithApiKey, transport.mantleEndpoint));
            }
        }
        return new BedrockInvokers(invokers, apiKey);
    }

    /**
     * Applies the settings the invokers rely on to a client builder: no retries, and a default
     * call timeout so a call without one cannot hang a function until its own time limit.
     */
    public static BedrockRuntimeClientBuilder withoutRetries(BedrockRuntimeClientBuilder builder,
                                                             Duration defaultCallTimeout) {
        return builder.overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                .apiCallTimeout(defaultCallTimeout));
    }

    @Override
    public BedrockOutcome invoke(ModelConfig model, String requestJson, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        boolean apiKey = model.backend().isMantle()
                && model.backendSettings().auth() == BackendSettings.MantleAuth.API_KEY;
        ShapeInvoker invoker = (apiKey ? mantleApiKeyInvokers : invokers).get(model.backend());
        try {
            return invoker.invoke(model, requestJson.getBytes(StandardCharsets.UTF_8), timeout);
        } catch (IllegalStateException e) {
            // a missing API key: the deployment's fault, and the same on every attempt
            return new BedrockOutcome.Rejected(RejectionKind.ACCESS_DENIED, 0, e.getMessage());
        }
    }
}
