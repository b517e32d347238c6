package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.bedrock.OutcomeClassifier;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelConfig;
import java.time.Duration;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;

/**
 * Calls Bedrock's Converse API once per invocation. The client must not retry: the SDK's default
 * retries 429s and 5xx silently, which hides throttles from the pacer and spends the deadline on
 * blind backoff. The constructor refuses a client whose retry strategy allows a second attempt.
 */
public final class ConverseModelInvoker implements ModelInvoker {

    private final BedrockRuntimeClient bedrock;
    private final ConverseRequestReader reader;
    private final ConverseResponseWriter writer;

    private ConverseModelInvoker(BedrockRuntimeClient bedrock, ObjectMapper json) {
        this.bedrock = bedrock;
        this.reader = new ConverseRequestReader(json);
        this.writer = new ConverseResponseWriter(json);
    }

    /** @throws IllegalArgumentException if the client would retry failed calls */
    public static ConverseModelInvoker create(BedrockRuntimeClient bedrock) {
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
        return new ConverseModelInvoker(bedrock, new ObjectMapper());
    }

    /**
     * Applies the settings this invoker relies on to a client builder: no retries, and a default
     * call timeout so a call without one cannot hang a function until its own time limit.
     */
    public static BedrockRuntimeClientBuilder withoutRetries(BedrockRuntimeClientBuilder builder,
                                                             Duration defaultCallTimeout) {
        return builder.overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                .apiCallTimeout(defaultCallTimeout));
    }

    @Override
    public BedrockOutcome invoke(ModelConfig model, String converseRequestJson, Duration timeout) {
        if (model.backend() != Backend.CONVERSE) {
            throw new IllegalArgumentException("model " + model.key() + " uses " + model.backend().wireName()
                    + "; this invoker speaks Converse only");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        ConverseRequest request;
        try {
            request = reader.read(model.modelId(), converseRequestJson).toBuilder()
                    .overrideConfiguration(o -> o.apiCallTimeout(timeout).apiCallAttemptTimeout(timeout))
                    .build();
        } catch (IllegalArgumentException e) {
            return OutcomeClassifier.invalidRequest(e.getMessage());
        }
        ConverseResponse response;
        try {
            response = bedrock.converse(request);
        } catch (SdkServiceException e) {
            return classify(e);
        } catch (ApiCallTimeoutException | ApiCallAttemptTimeoutException e) {
            return OutcomeClassifier.clientTimeout(e.getMessage());
        } catch (SdkClientException e) {
            return OutcomeClassifier.connectionFailure(e.getMessage());
        }
        // Bedrock always names a stop reason; an empty one keeps a malformed answer visible, not fatal.
        String stopReason = response.stopReasonAsString() == null ? "" : response.stopReasonAsString();
        return new BedrockOutcome.Succeeded(ConverseResponseWriter.usage(response), stopReason,
                writer.write(response));
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
