package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.InvokeModelRequest;
import dev.trafficshaper.bedrock.OutcomeClassifier;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.model.NativeBody;
import dev.trafficshaper.quota.TokenUsage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelResponse;

/**
 * InvokeModel on bedrock-runtime through the SDK's client, which takes the body as bytes and so
 * passes the caller's native body untouched; the service tier goes in the
 * {@code X-Amzn-Bedrock-Service-Tier} header. Usage comes from the response headers
 * {@code X-Amzn-Bedrock-Input-Token-Count}, {@code -Output-Token-Count},
 * {@code -Cache-Read-Input-Token-Count} and {@code -Cache-Write-Input-Token-Count}; the stop
 * reason from the family's body field; how long Bedrock worked on the call from
 * {@code X-Amzn-Bedrock-Invocation-Latency}.
 */
final class InvokeModelInvoker implements ShapeInvoker {

    static final String INVOCATION_LATENCY = "X-Amzn-Bedrock-Invocation-Latency";
    static final String INPUT_TOKENS = "X-Amzn-Bedrock-Input-Token-Count";
    static final String OUTPUT_TOKENS = "X-Amzn-Bedrock-Output-Token-Count";
    static final String CACHE_READ_TOKENS = "X-Amzn-Bedrock-Cache-Read-Input-Token-Count";
    static final String CACHE_WRITE_TOKENS = "X-Amzn-Bedrock-Cache-Write-Input-Token-Count";

    private final BedrockRuntimeClient bedrock;

    InvokeModelInvoker(BedrockRuntimeClient bedrock) {
        this.bedrock = bedrock;
    }

    @Override
    public BedrockOutcome invoke(ModelConfig model, byte[] stored, Duration timeout) {
        InvokeModelRequest request;
        try {
            request = InvokeModelRequest.read(new String(stored, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return OutcomeClassifier.invalidRequest(e.getMessage());
        }
        InvokeModelResponse response;
        try {
            response = bedrock.invokeModel(b -> {
                b.modelId(model.modelId()).contentType("application/json").accept("application/json")
                        .body(SdkBytes.fromByteArray(request.body()))
                        .overrideConfiguration(o -> o.apiCallTimeout(timeout).apiCallAttemptTimeout(timeout));
                request.tier().ifPresent(tier -> b.serviceTier(tier.wireName()));
            });
        } catch (SdkServiceException e) {
            return classify(e);
        } catch (ApiCallTimeoutException | ApiCallAttemptTimeoutException e) {
            return OutcomeClassifier.clientTimeout(e.getMessage());
        } catch (SdkClientException e) {
            return OutcomeClassifier.connectionFailure(e);
        }
        SdkHttpResponse http = response.sdkHttpResponse();
        TokenUsage usage = new TokenUsage(header(http, INPUT_TOKENS), header(http, OUTPUT_TOKENS),
                header(http, CACHE_READ_TOKENS), header(http, CACHE_WRITE_TOKENS));
        byte[] body = response.body().asByteArray();
        long latency = http.firstMatchingHeader(INVOCATION_LATENCY).isPresent()
                ? header(http, INVOCATION_LATENCY) : BedrockOutcome.Succeeded.UNKNOWN_SERVICE;
        return new BedrockOutcome.Succeeded(usage, stopReason(model.nativeBody().orElse(null),
                UsageReading.tree(body)), new String(body, StandardCharsets.UTF_8), latency);
    }

    private static long header(SdkHttpResponse http, String name) {
        Optional<String> value = http.firstMatchingHeader(name);
        try {
            return value.map(String::trim).map(Long::parseLong).map(v -> Math.max(0, v)).orElse(0L);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static String stopReason(NativeBody family, JsonNode body) {
        if (family == null) {
            return "";
        }
        return switch (family) {
            case ANTHROPIC, LLAMA -> body.path("stop_reason").asText("");
            case NOVA -> body.path("stopReason").asText("");
            case TITAN -> body.path("results").path(0).path("completionReason").asText("");
            case MISTRAL -> body.has("choices") ? body.path("choices").path(0).path("finish_reason").asText("")
                    : body.path("outputs").path(0).path("stop_reason").asText("");
        };
    }

    private static BedrockOutcome classify(SdkServiceException e) {
        String code = null;
        String message = e.getMessage();
        if (e instanceof AwsServiceException aws && aws.awsErrorDetails() != null) {
            AwsErrorDetails details = aws.awsErrorDetails();
            code = details.errorCode();
            if (details.errorMessage() != null) {
                message = details.errorMessage();
            }
        }
        return OutcomeClassifier.classify(code, e.statusCode(), message);
    }
}
