package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import dev.trafficshaper.threads.DaemonThreads;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.StandardRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;

/**
 * An application that calls Bedrock directly with the AWS SDK for Java v2: each request is sent at
 * its arrival time on its own thread with one shared {@link BedrockRuntimeClient}, as a service
 * handling a burst would. Retries, if any, are the SDK's own.
 */
final class DirectArm implements AutoCloseable {

    /** The seed experiment's policy: 4 attempts in all. */
    static final int RETRY_ATTEMPTS = 4;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(120);

    private final BedrockRuntimeClient bedrock;
    private final String modelId;
    private final long maxTokens;
    private final ScheduledExecutorService arrivals;
    private final ExecutorService callers;

    private DirectArm(BedrockRuntimeClient bedrock, String modelId, long maxTokens) {
        this.bedrock = bedrock;
        this.modelId = modelId;
        this.maxTokens = maxTokens;
        this.arrivals = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("demo-direct-arrivals"));
        this.callers = Executors.newCachedThreadPool(DaemonThreads.factory("demo-direct-caller"));
    }

    /** Retries off, exactly as the shaper's own Bedrock Processor builds its client. */
    static DirectArm withoutRetries(URI endpoint, String modelId, long maxTokens) {
        return new DirectArm(BedrockInvokers.withoutRetries(clientBuilder(endpoint), CALL_TIMEOUT).build(),
                modelId, maxTokens);
    }

    /** The seed's retry loop, built from the SDK's own retry strategy, its waits on the demo clock. */
    static DirectArm withRetryAndJitter(URI endpoint, String modelId, long maxTokens, double timeScale) {
        BedrockRuntimeClient client = clientBuilder(endpoint)
                .overrideConfiguration(o -> o.retryStrategy(seedRetryPolicy(timeScale)).apiCallTimeout(CALL_TIMEOUT))
                .build();
        return new DirectArm(client, modelId, maxTokens);
    }

    /**
     * Up to 4 attempts, on throttling only, with the SDK's full-jitter backoff: attempt n waits
     * uniform(0, min(30 s, 1 s × 2^(n−2))), so ceilings of 1, 2 and 4 s, here divided by
     * {@code timeScale} because the SDK sleeps on the wall clock. The SDK's retry circuit breaker is
     * off: the published policy has none, and it would cap the retries of one client.
     */
    static RetryStrategy seedRetryPolicy(double timeScale) {
        BackoffStrategy fullJitter = fullJitter(timeScale);
        return StandardRetryStrategy.builder()
                .maxAttempts(RETRY_ATTEMPTS)
                .retryOnExceptionInstanceOf(ThrottlingException.class)
                .backoffStrategy(fullJitter)
                .throttlingBackoffStrategy(fullJitter)
                .circuitBreakerEnabled(false)
                .build();
    }

    static BackoffStrategy fullJitter(double timeScale) {
        return BackoffStrategy.exponentialDelay(Duration.ofMillis(Math.round(1_000 / timeScale)),
                Duration.ofMillis(Math.round(30_000 / timeScale)));
    }

    /**
     * One CountTokens call before the clock starts, so the first requests do not pay for class
     * loading. CountTokens uses no quota and is not counted as a call by the simulator.
     */
    void warmUp() {
        bedrock.countTokens(r -> r.modelId(modelId).input(i -> i.converse(c -> c.messages(
                Message.builder().role(ConversationRole.USER).content(ContentBlock.fromText("warm up")).build()))));
    }

    /**
     * Sends every request of the burst at its arrival time on the demo clock; each outcome goes to
     * {@code tally}. Returns at once; the calls run on their own threads.
     */
    void start(Burst burst, ArmTally tally, DemoClock clock) {
        for (Burst.Request request : burst.requests()) {
            arrivals.schedule(() -> callers.execute(() -> call(request, tally, clock)),
                    clock.wallMillisUntil(request.arrivalOffsetMillis()), TimeUnit.MILLISECONDS);
        }
    }

    private void call(Burst.Request request, ArmTally tally, DemoClock clock) {
        long sent = clock.elapsedMillis();
        boolean success = false;
        try {
            bedrock.converse(converse(request));
            success = true;
        } catch (ThrottlingException e) {
            // the outcome this arm measures: a lost request
        } catch (RuntimeException e) {
            tally.error(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        long now = clock.elapsedMillis();
        tally.finished(success, now - sent, now);
    }

    private ConverseRequest converse(Burst.Request request) {
        return ConverseRequest.builder()
                .modelId(modelId)
                .messages(Message.builder().role(ConversationRole.USER)
                        .content(ContentBlock.fromText(request.prompt())).build())
                .inferenceConfig(c -> c.maxTokens(Math.toIntExact(maxTokens)))
                .build();
    }

    private static BedrockRuntimeClientBuilder clientBuilder(URI endpoint) {
        return BedrockRuntimeClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("demo", "demo")))
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(CALL_TIMEOUT));
    }

    @Override
    public void close() {
        arrivals.shutdownNow();
        callers.shutdownNow();
        bedrock.close();
    }
}
